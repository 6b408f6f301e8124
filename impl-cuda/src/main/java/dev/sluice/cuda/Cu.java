package dev.sluice.cuda;

import dev.sluice.DeviceException;
import dev.sluice.DeviceOutOfMemoryException;
import dev.sluice.SluiceException;
import dev.sluice.UnsupportedOnBackendException;
import java.lang.foreign.AddressLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Bindings layer: the CUDA driver functions Sluice calls through {@code java.lang.foreign}, with handles passed as
 * their native addresses ({@code long}), and the status checks that turn a {@code CUresult} into a typed
 * {@link SluiceException} carrying the error's name and code. The hot path (launches, event record and query,
 * stream waits, copies, memsets, stream memory operations, context binding) lives here; JCuda covers the rest
 * of the driver API (see {@link Jc}). The class initialises only after {@link CuLibrary#load()} found
 * {@code libcuda}, so CI machines without a driver never touch it.
 */
final class Cu {

    private Cu() {
    }

    static final int SUCCESS = 0;
    static final int ERROR_INVALID_VALUE = 1;
    static final int ERROR_OUT_OF_MEMORY = 2;
    static final int ERROR_INVALID_CONTEXT = 201;
    static final int ERROR_NOT_FOUND = 500;
    static final int ERROR_NOT_READY = 600;
    static final int ERROR_PEER_ACCESS_ALREADY_ENABLED = 704;
    static final int ERROR_NOT_SUPPORTED = 801;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIB = SymbolLookup.libraryLookup(CuLibrary.driverPath(), Arena.global());
    private static final ValueLayout.OfLong J = ValueLayout.JAVA_LONG;
    private static final ValueLayout.OfInt I = ValueLayout.JAVA_INT;
    private static final AddressLayout A = ValueLayout.ADDRESS;
    /**
     * Calls that never block (event query, current context): no thread-state transition. Launches and records
     * may block while the driver's queue is full, so they stay ordinary downcalls.
     */
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);

    // ---------------------------------------------------------------- bindings (CUresult f(...))

    private static final MethodHandle GET_ERROR_NAME = fn("cuGetErrorName", I, A);
    private static final MethodHandle GET_ERROR_STRING = fn("cuGetErrorString", I, A);
    private static final MethodHandle CTX_GET_CURRENT = critical("cuCtxGetCurrent", A);
    private static final MethodHandle CTX_SET_CURRENT = fn("cuCtxSetCurrent", J);
    private static final MethodHandle LAUNCH_KERNEL = fn("cuLaunchKernel", J, I, I, I, I, I, I, I, J, J, J);
    private static final MethodHandle LAUNCH_KERNEL_EX = optional(false, "cuLaunchKernelEx", J, J, J, J);
    private static final MethodHandle EVENT_RECORD = fn("cuEventRecord", J, J);
    private static final MethodHandle EVENT_QUERY = critical("cuEventQuery", J);
    private static final MethodHandle STREAM_WAIT_EVENT = fn("cuStreamWaitEvent", J, J, I);
    private static final MethodHandle MEMCPY_HTOD_ASYNC = fn(new String[] {"cuMemcpyHtoDAsync_v2", "cuMemcpyHtoDAsync"}, J, J, J, J);
    private static final MethodHandle MEMCPY_DTOH_ASYNC = fn(new String[] {"cuMemcpyDtoHAsync_v2", "cuMemcpyDtoHAsync"}, J, J, J, J);
    private static final MethodHandle MEMCPY_DTOD_ASYNC = fn(new String[] {"cuMemcpyDtoDAsync_v2", "cuMemcpyDtoDAsync"}, J, J, J, J);
    private static final MethodHandle MEMCPY_PEER_ASYNC = fn("cuMemcpyPeerAsync", J, J, J, J, J, J);
    private static final MethodHandle MEMCPY_2D_ASYNC = fn(new String[] {"cuMemcpy2DAsync_v2", "cuMemcpy2DAsync"}, J, J);
    private static final MethodHandle MEMSET_D8_ASYNC = fn("cuMemsetD8Async", J, I, J, J);
    private static final MethodHandle MEMSET_D16_ASYNC = fn("cuMemsetD16Async", J, I, J, J);
    private static final @Nullable MethodHandle PROFILER_START = optional(false, "cuProfilerStart");
    private static final @Nullable MethodHandle PROFILER_STOP = optional(false, "cuProfilerStop");
    private static final MethodHandle MODULE_GET_GLOBAL = fn(new String[] {"cuModuleGetGlobal_v2", "cuModuleGetGlobal"}, A, A, J, A);
    private static final MethodHandle MEMSET_D32_ASYNC = fn("cuMemsetD32Async", J, I, J, J);
    private static final MethodHandle STREAM_WAIT_VALUE32 = fn(new String[] {"cuStreamWaitValue32_v2", "cuStreamWaitValue32"}, J, J, I, I);
    private static final MethodHandle STREAM_WRITE_VALUE32 = fn(new String[] {"cuStreamWriteValue32_v2", "cuStreamWriteValue32"}, J, J, I, I);
    private static final MethodHandle STREAM_QUERY = critical("cuStreamQuery", J);
    private static final MethodHandle DEVICE_PRIMARY_CTX_RESET = fn(new String[] {"cuDevicePrimaryCtxReset_v2", "cuDevicePrimaryCtxReset"}, I);
    private static final MethodHandle MEM_ALLOC = fn(new String[] {"cuMemAlloc_v2", "cuMemAlloc"}, A, J);
    private static final MethodHandle MEM_FREE = fn(new String[] {"cuMemFree_v2", "cuMemFree"}, J);
    private static final MethodHandle MEM_ALLOC_ASYNC = optional(false, "cuMemAllocAsync", A, J, J);
    private static final MethodHandle MEM_FREE_ASYNC = optional(false, "cuMemFreeAsync", J, J);
    private static final MethodHandle MEM_HOST_ALLOC = fn("cuMemHostAlloc", A, J, I);
    private static final MethodHandle MEM_FREE_HOST = fn("cuMemFreeHost", J);
    private static final MethodHandle MEM_HOST_REGISTER = fn(new String[] {"cuMemHostRegister_v2", "cuMemHostRegister"}, J, J, I);
    private static final MethodHandle MEM_HOST_UNREGISTER = fn("cuMemHostUnregister", J);
    private static final MethodHandle MEM_HOST_GET_DEVICE_POINTER = fn(new String[] {"cuMemHostGetDevicePointer_v2",
            "cuMemHostGetDevicePointer"}, A, J, I);
    private static final MethodHandle MODULE_LOAD_DATA_EX = fn("cuModuleLoadDataEx", A, J, I, J, J);
    private static final MethodHandle MODULE_GET_FUNCTION = fn("cuModuleGetFunction", A, J, A);
    private static final MethodHandle MODULE_UNLOAD = fn("cuModuleUnload", J);
    private static final MethodHandle FUNC_GET_ATTRIBUTE = fn("cuFuncGetAttribute", A, I, J);
    private static final MethodHandle FUNC_SET_ATTRIBUTE = fn("cuFuncSetAttribute", J, I, I);
    private static final MethodHandle EVENT_CREATE = fn("cuEventCreate", A, I);
    private static final MethodHandle EVENT_DESTROY = fn(new String[] {"cuEventDestroy_v2", "cuEventDestroy"}, J);
    private static final MethodHandle EVENT_SYNCHRONIZE = fn("cuEventSynchronize", J);
    private static final MethodHandle EVENT_ELAPSED_TIME = fn("cuEventElapsedTime", A, J, J);
    private static final MethodHandle GRAPH_LAUNCH = fn("cuGraphLaunch", J, J);
    /** {@code cuLaunchHostFunc(CUstream, CUhostFn, void* userData)}: capturable; a host node in a graph. */
    private static final MethodHandle LAUNCH_HOST_FUNC = fn("cuLaunchHostFunc", J, J, J);
    private static final MethodHandle DEVICE_GET_DEFAULT_MEM_POOL = optional(false, "cuDeviceGetDefaultMemPool", A, I);
    private static final MethodHandle MEM_POOL_SET_ACCESS = optional(false, "cuMemPoolSetAccess", J, J, J);
    // Graphs built node by node for repeated work (CudaReplayGraph), with the v1 node structs every CUDA 11.4+ driver
    // exports under these names. Pointers pass as addresses (J). Optional: without them repeated work falls back.
    /** {@code cuGraphCreate(CUgraph*, unsigned int flags)}. */
    private static final @Nullable MethodHandle GRAPH_CREATE = optional(false, "cuGraphCreate", J, I);
    /** {@code cuGraphAddKernelNode(CUgraphNode*, CUgraph, const CUgraphNode* deps, size_t n, const CUDA_KERNEL_NODE_PARAMS*)}. */
    private static final @Nullable MethodHandle GRAPH_ADD_KERNEL_NODE = optional(false, "cuGraphAddKernelNode", J, J, J, J, J);
    /** {@code cuGraphAddMemsetNode(CUgraphNode*, CUgraph, deps, n, const CUDA_MEMSET_NODE_PARAMS*, CUcontext)}. */
    private static final @Nullable MethodHandle GRAPH_ADD_MEMSET_NODE = optional(false, "cuGraphAddMemsetNode", J, J, J, J, J, J);
    /** {@code cuGraphAddMemcpyNode(CUgraphNode*, CUgraph, deps, n, const CUDA_MEMCPY3D*, CUcontext)}. */
    private static final @Nullable MethodHandle GRAPH_ADD_MEMCPY_NODE = optional(false, "cuGraphAddMemcpyNode", J, J, J, J, J, J);
    /** {@code cuGraphInstantiateWithFlags(CUgraphExec*, CUgraph, unsigned long long flags)}. */
    private static final @Nullable MethodHandle GRAPH_INSTANTIATE = optional(false, "cuGraphInstantiateWithFlags", J, J, J);
    /** {@code cuGraphExecKernelNodeSetParams(CUgraphExec, CUgraphNode, const CUDA_KERNEL_NODE_PARAMS*)}. */
    private static final @Nullable MethodHandle GRAPH_EXEC_KERNEL_NODE_SET = optional(false, "cuGraphExecKernelNodeSetParams", J, J, J);
    /** {@code cuGraphExecMemsetNodeSetParams(CUgraphExec, CUgraphNode, const CUDA_MEMSET_NODE_PARAMS*, CUcontext)}. */
    private static final @Nullable MethodHandle GRAPH_EXEC_MEMSET_NODE_SET = optional(false, "cuGraphExecMemsetNodeSetParams", J, J, J, J);
    /** {@code cuGraphExecMemcpyNodeSetParams(CUgraphExec, CUgraphNode, const CUDA_MEMCPY3D*, CUcontext)}. */
    private static final @Nullable MethodHandle GRAPH_EXEC_MEMCPY_NODE_SET = optional(false, "cuGraphExecMemcpyNodeSetParams", J, J, J, J);
    private static final @Nullable MethodHandle GRAPH_DESTROY = optional(false, "cuGraphDestroy", J);
    private static final @Nullable MethodHandle GRAPH_EXEC_DESTROY = optional(false, "cuGraphExecDestroy", J);

    private static MethodHandle fn(String name, MemoryLayout... args) {
        return fn(new String[] {name}, args);
    }

    private static MethodHandle critical(String name, MemoryLayout... args) {
        MethodHandle h = optional(true, name, args);
        if (h == null) {
            throw new UnsupportedOnBackendException("libcuda has no " + name);
        }
        return h;
    }

    private static MethodHandle fn(String[] names, MemoryLayout... args) {
        for (String n : names) {
            MethodHandle h = optional(false, n, args);
            if (h != null) {
                return h;
            }
        }
        throw new UnsupportedOnBackendException("libcuda (" + CuLibrary.driverPath() + ") has none of " + String.join(", ", names));
    }

    private static @Nullable MethodHandle optional(boolean critical, String name, MemoryLayout... args) {
        Optional<MemorySegment> sym = LIB.find(name);
        if (sym.isEmpty()) {
            return null;
        }
        FunctionDescriptor d = FunctionDescriptor.of(I, args);
        return CuCallTimes.wrap(name, critical ? LINKER.downcallHandle(sym.get(), d, CRITICAL) : LINKER.downcallHandle(sym.get(), d));
    }

    static boolean hasLaunchKernelEx() {
        return LAUNCH_KERNEL_EX != null;
    }

    static boolean hasMemoryPools() {
        return MEM_ALLOC_ASYNC != null && MEM_FREE_ASYNC != null;
    }

    // ---------------------------------------------------------------- per-thread scratch for out-parameters

    private static final ThreadLocal<MemorySegment> SCRATCH = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(64, 8));

    static MemorySegment scratch() {
        return SCRATCH.get();
    }

    // ---------------------------------------------------------------- calls (each returns the CUresult)

    static long ctxGetCurrent() {
        MemorySegment s = SCRATCH.get();
        try {
            check((int) CTX_GET_CURRENT.invokeExact(s), "cuCtxGetCurrent");
        } catch (SluiceException e) {
            throw e;
        } catch (Throwable t) {
            throw fatal(t);
        }
        return s.get(J, 0);
    }

    static int ctxSetCurrent(long ctx) {
        try {
            return (int) CTX_SET_CURRENT.invokeExact(ctx);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static int launchKernel(long f, int gx, int gy, int gz, int bx, int by, int bz, int shared, long stream, long params) {
        try {
            return (int) LAUNCH_KERNEL.invokeExact(f, gx, gy, gz, bx, by, bz, shared, stream, params, 0L);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static int launchKernelEx(long config, long f, long params) {
        if (LAUNCH_KERNEL_EX == null) {
            return ERROR_NOT_SUPPORTED;
        }
        try {
            return (int) LAUNCH_KERNEL_EX.invokeExact(config, f, params, 0L);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static int eventRecord(long event, long stream) {
        try {
            return (int) EVENT_RECORD.invokeExact(event, stream);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static int eventQuery(long event) {
        try {
            return (int) EVENT_QUERY.invokeExact(event);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static long eventCreate(int flags) {
        MemorySegment s = SCRATCH.get();
        int r;
        try {
            r = (int) EVENT_CREATE.invokeExact(s, flags);
        } catch (Throwable t) {
            throw fatal(t);
        }
        check(r, "cuEventCreate");
        return s.get(J, 0);
    }

    static int eventDestroy(long event) {
        try {
            return (int) EVENT_DESTROY.invokeExact(event);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    /** Blocks in the driver (spinning, or sleeping for events made with CU_EVENT_BLOCKING_SYNC). */
    static int eventSynchronize(long event) {
        try {
            return (int) EVENT_SYNCHRONIZE.invokeExact(event);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    /** Milliseconds between two completed events recorded with timing ({@code cuEventElapsedTime}). */
    static float eventElapsedTime(long start, long end) {
        MemorySegment s = SCRATCH.get();
        int r;
        try {
            r = (int) EVENT_ELAPSED_TIME.invokeExact(s, start, end);
        } catch (Throwable t) {
            throw fatal(t);
        }
        check(r, "cuEventElapsedTime");
        return s.get(ValueLayout.JAVA_FLOAT, 0);
    }

    /** Enqueues an executable graph ({@code cuGraphLaunch}). */
    static int graphLaunch(long exec, long stream) {
        try {
            return (int) GRAPH_LAUNCH.invokeExact(exec, stream);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    // ---------------------------------------------------------------- graphs built node by node (repeated work)

    /** Whether the driver has every call {@code CudaReplayGraph} makes. */
    static boolean hasGraphBuilding() {
        return GRAPH_CREATE != null && GRAPH_ADD_KERNEL_NODE != null && GRAPH_ADD_MEMSET_NODE != null
                && GRAPH_ADD_MEMCPY_NODE != null && GRAPH_INSTANTIATE != null && GRAPH_EXEC_KERNEL_NODE_SET != null
                && GRAPH_EXEC_MEMSET_NODE_SET != null && GRAPH_EXEC_MEMCPY_NODE_SET != null && GRAPH_DESTROY != null
                && GRAPH_EXEC_DESTROY != null;
    }

    static int graphCreate(long graphOut) {
        try {
            return (int) Objects.requireNonNull(GRAPH_CREATE).invokeExact(graphOut, 0);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static int graphAddKernelNode(long nodeOut, long graph, long dependencies, long count, long params) {
        try {
            return (int) Objects.requireNonNull(GRAPH_ADD_KERNEL_NODE).invokeExact(nodeOut, graph, dependencies, count, params);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static int graphAddMemsetNode(long nodeOut, long graph, long dependencies, long count, long params, long ctx) {
        try {
            return (int) Objects.requireNonNull(GRAPH_ADD_MEMSET_NODE).invokeExact(nodeOut, graph, dependencies, count, params,
                    ctx);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static int graphAddMemcpyNode(long nodeOut, long graph, long dependencies, long count, long params, long ctx) {
        try {
            return (int) Objects.requireNonNull(GRAPH_ADD_MEMCPY_NODE).invokeExact(nodeOut, graph, dependencies, count, params,
                    ctx);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static int graphInstantiate(long execOut, long graph) {
        try {
            return (int) Objects.requireNonNull(GRAPH_INSTANTIATE).invokeExact(execOut, graph, 0L);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static int graphExecKernelNodeSetParams(long exec, long node, long params) {
        try {
            return (int) Objects.requireNonNull(GRAPH_EXEC_KERNEL_NODE_SET).invokeExact(exec, node, params);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static int graphExecMemsetNodeSetParams(long exec, long node, long params, long ctx) {
        try {
            return (int) Objects.requireNonNull(GRAPH_EXEC_MEMSET_NODE_SET).invokeExact(exec, node, params, ctx);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static int graphExecMemcpyNodeSetParams(long exec, long node, long params, long ctx) {
        try {
            return (int) Objects.requireNonNull(GRAPH_EXEC_MEMCPY_NODE_SET).invokeExact(exec, node, params, ctx);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static int graphDestroy(long graph) {
        try {
            return (int) Objects.requireNonNull(GRAPH_DESTROY).invokeExact(graph);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static int graphExecDestroy(long exec) {
        try {
            return (int) Objects.requireNonNull(GRAPH_EXEC_DESTROY).invokeExact(exec);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    /** An upcall stub that lives as long as the process: the callback of host nodes ({@code HostNodes}). */
    static MemorySegment upcallStub(MethodHandle target, FunctionDescriptor type) {
        return LINKER.upcallStub(target, type, Arena.global());
    }

    static int launchHostFunc(long stream, long function, long userData) {
        try {
            return (int) LAUNCH_HOST_FUNC.invokeExact(stream, function, userData);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static int streamWaitEvent(long stream, long event) {
        try {
            return (int) STREAM_WAIT_EVENT.invokeExact(stream, event, 0);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static int memcpyHtoDAsync(long dst, long src, long bytes, long stream) {
        try {
            return (int) MEMCPY_HTOD_ASYNC.invokeExact(dst, src, bytes, stream);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static int memcpyDtoHAsync(long dst, long src, long bytes, long stream) {
        try {
            return (int) MEMCPY_DTOH_ASYNC.invokeExact(dst, src, bytes, stream);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static int memcpyDtoDAsync(long dst, long src, long bytes, long stream) {
        try {
            return (int) MEMCPY_DTOD_ASYNC.invokeExact(dst, src, bytes, stream);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static int memcpyPeerAsync(long dst, long dstCtx, long src, long srcCtx, long bytes, long stream) {
        try {
            return (int) MEMCPY_PEER_ASYNC.invokeExact(dst, dstCtx, src, srcCtx, bytes, stream);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    /** {@code CU_MEMORYTYPE_HOST} and {@code CU_MEMORYTYPE_DEVICE}: where a side of {@link #memcpy2DAsync} lies. */
    static final int MEMORYTYPE_HOST = 1;
    static final int MEMORYTYPE_DEVICE = 2;
    /** {@code sizeof(CUDA_MEMCPY2D)} on 64-bit platforms: 13 {@code size_t}s and pointers, 2 padded enums. */
    static final long MEMCPY2D_BYTES = 128;

    /**
     * {@code cuMemcpy2DAsync} of {@code height} rows of {@code widthBytes}: fills {@code params} (a
     * {@code CUDA_MEMCPY2D} of {@link #MEMCPY2D_BYTES}, owned by the caller's stream and reused) and makes the call. A
     * side of {@link #MEMORYTYPE_HOST} reads its address as a host pointer, of {@link #MEMORYTYPE_DEVICE} as a
     * {@code CUdeviceptr}.
     */
    static int memcpy2DAsync(MemorySegment params, int sourceType, long source, long sourcePitch, int destinationType,
            long destination, long destinationPitch, long widthBytes, long height, long stream) {
        params.fill((byte) 0);
        // field offsets of CUDA_MEMCPY2D: srcXInBytes 0, srcY 8, srcMemoryType 16, srcHost 24, srcDevice 32, srcArray 40,
        // srcPitch 48, dstXInBytes 56, dstY 64, dstMemoryType 72, dstHost 80, dstDevice 88, dstArray 96, dstPitch 104,
        // WidthInBytes 112, Height 120
        params.set(I, 16, sourceType);
        params.set(J, sourceType == MEMORYTYPE_HOST ? 24 : 32, source);
        params.set(J, 48, sourcePitch);
        params.set(I, 72, destinationType);
        params.set(J, destinationType == MEMORYTYPE_HOST ? 80 : 88, destination);
        params.set(J, 104, destinationPitch);
        params.set(J, 112, widthBytes);
        params.set(J, 120, height);
        try {
            return (int) MEMCPY_2D_ASYNC.invokeExact(params.address(), stream);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static int memsetAsync(long dst, int elementBytes, int value, long count, long stream) {
        try {
            return switch (elementBytes) {
                case 1 -> (int) MEMSET_D8_ASYNC.invokeExact(dst, value & 0xFF, count, stream);
                case 2 -> (int) MEMSET_D16_ASYNC.invokeExact(dst, value & 0xFFFF, count, stream);
                case 4 -> (int) MEMSET_D32_ASYNC.invokeExact(dst, value, count, stream);
                default -> throw new IllegalArgumentException("element size " + elementBytes);
            };
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static int streamWaitValue32(long stream, long address, int value, int flags) {
        try {
            return (int) STREAM_WAIT_VALUE32.invokeExact(stream, address, value, flags);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    /**
     * Enqueues on {@code stream} a device write of {@code value} at device address {@code address}; flags 0 keep the
     * system-scope fence before the write (the completion counters' memory ordering rests on it).
     */
    static int streamWriteValue32(long stream, long address, int value, int flags) {
        try {
            return (int) STREAM_WRITE_VALUE32.invokeExact(stream, address, value, flags);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    /** Non-blocking: SUCCESS when all work of the stream finished, NOT_READY, or the context's sticky error. */
    static int streamQuery(long stream) {
        try {
            return (int) STREAM_QUERY.invokeExact(stream);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static int devicePrimaryCtxReset(int device) {
        try {
            return (int) DEVICE_PRIMARY_CTX_RESET.invokeExact(device);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    /** cuMemAlloc; returns the device pointer or throws (OOM as {@link DeviceOutOfMemoryException}). */
    static long memAlloc(long bytes) {
        MemorySegment s = SCRATCH.get();
        int r;
        try {
            r = (int) MEM_ALLOC.invokeExact(s, bytes);
        } catch (Throwable t) {
            throw fatal(t);
        }
        checkAlloc(r, "cuMemAlloc", bytes);
        return s.get(J, 0);
    }

    static long memAllocAsync(long bytes, long stream) {
        MemorySegment s = SCRATCH.get();
        int r;
        try {
            r = (int) MEM_ALLOC_ASYNC.invokeExact(s, bytes, stream);
        } catch (Throwable t) {
            throw fatal(t);
        }
        checkAlloc(r, "cuMemAllocAsync", bytes);
        return s.get(J, 0);
    }

    static int memFree(long ptr) {
        try {
            return (int) MEM_FREE.invokeExact(ptr);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static int memFreeAsync(long ptr, long stream) {
        try {
            return (int) MEM_FREE_ASYNC.invokeExact(ptr, stream);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static long memHostAlloc(long bytes, int flags) {
        MemorySegment s = SCRATCH.get();
        int r;
        try {
            r = (int) MEM_HOST_ALLOC.invokeExact(s, bytes, flags);
        } catch (Throwable t) {
            throw fatal(t);
        }
        checkAlloc(r, "cuMemHostAlloc", bytes);
        return s.get(J, 0);
    }

    static int memFreeHost(long ptr) {
        try {
            return (int) MEM_FREE_HOST.invokeExact(ptr);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static int memHostRegister(long ptr, long bytes, int flags) {
        try {
            return (int) MEM_HOST_REGISTER.invokeExact(ptr, bytes, flags);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static int memHostUnregister(long ptr) {
        try {
            return (int) MEM_HOST_UNREGISTER.invokeExact(ptr);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static long memHostGetDevicePointer(long host) {
        MemorySegment s = SCRATCH.get();
        int r;
        try {
            r = (int) MEM_HOST_GET_DEVICE_POINTER.invokeExact(s, host, 0);
        } catch (Throwable t) {
            throw fatal(t);
        }
        check(r, "cuMemHostGetDevicePointer");
        return s.get(J, 0);
    }

    /** cuModuleLoadDataEx with an error-log buffer; returns the result and leaves the module in {@code out[0]}. */
    static int moduleLoadDataEx(MemorySegment moduleOut, MemorySegment image, int numOptions, MemorySegment options,
            MemorySegment values) {
        try {
            return (int) MODULE_LOAD_DATA_EX.invokeExact(moduleOut, image.address(), numOptions, options.address(),
                    values.address());
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static long moduleGetFunction(long module, String name) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(J);
            int r = (int) MODULE_GET_FUNCTION.invokeExact(out, module, a.allocateFrom(name));
            check(r, "cuModuleGetFunction(" + name + ")");
            return out.get(J, 0);
        } catch (SluiceException e) {
            throw e;
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static int moduleUnload(long module) {
        try {
            return (int) MODULE_UNLOAD.invokeExact(module);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static int funcGetAttribute(int attribute, long function) {
        MemorySegment s = SCRATCH.get();
        try {
            int r = (int) FUNC_GET_ATTRIBUTE.invokeExact(s, attribute, function);
            check(r, "cuFuncGetAttribute");
        } catch (SluiceException e) {
            throw e;
        } catch (Throwable t) {
            throw fatal(t);
        }
        return s.get(ValueLayout.JAVA_INT, 0);
    }

    /**
     * {@code cuModuleGetGlobal}: the address and size of module variable {@code name}; {@code out[0]}, {@code out[1]}.
     * Returns the {@code CUresult}. The context is bound.
     */
    static int moduleGetGlobal(long module, String name, long[] out) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment address = a.allocate(J);
            MemorySegment bytes = a.allocate(J);
            int r = (int) MODULE_GET_GLOBAL.invokeExact(address, bytes, module, a.allocateFrom(name));
            out[0] = address.get(J, 0);
            out[1] = bytes.get(J, 0);
            return r;
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    /** {@code cuProfilerStart} or {@code cuProfilerStop}; {@link #ERROR_NOT_SUPPORTED} where the driver lacks them. */
    static int profiler(boolean start) {
        MethodHandle h = start ? PROFILER_START : PROFILER_STOP;
        if (h == null) {
            return ERROR_NOT_SUPPORTED;
        }
        try {
            return (int) h.invokeExact();
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    static int funcSetAttribute(long function, int attribute, int value) {
        try {
            return (int) FUNC_SET_ATTRIBUTE.invokeExact(function, attribute, value);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    /** Lets {@code accessor} read and write memory of {@code owner}'s default memory pool (stream-ordered allocations). */
    static int memPoolGrantAccess(int owner, int accessor) {
        if (DEVICE_GET_DEFAULT_MEM_POOL == null || MEM_POOL_SET_ACCESS == null) {
            return ERROR_NOT_SUPPORTED;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment pool = a.allocate(J);
            int r = (int) DEVICE_GET_DEFAULT_MEM_POOL.invokeExact(pool, owner);
            if (r != SUCCESS) {
                return r;
            }
            MemorySegment desc = a.allocate(12, 4); // CUmemAccessDesc { CUmemLocation { type, id }, flags }
            desc.set(ValueLayout.JAVA_INT, 0, 1); // CU_MEM_LOCATION_TYPE_DEVICE
            desc.set(ValueLayout.JAVA_INT, 4, accessor);
            desc.set(ValueLayout.JAVA_INT, 8, 3); // CU_MEM_ACCESS_FLAGS_PROT_READWRITE
            return (int) MEM_POOL_SET_ACCESS.invokeExact(pool.get(J, 0), desc.address(), 1L);
        } catch (Throwable t) {
            throw fatal(t);
        }
    }

    // ---------------------------------------------------------------- status checks

    /** Errors after which the context is unusable ("sticky"): the device faulted. */
    static boolean isSticky(int code) {
        return switch (code) {
            case 214, // ECC_UNCORRECTABLE
                 700, // ILLEGAL_ADDRESS
                 702, // LAUNCH_TIMEOUT
                 709, // CONTEXT_IS_DESTROYED
                 710, // ASSERT
                 714, 715, 716, 717, 718, // HARDWARE_STACK_ERROR .. INVALID_PC
                 719, // LAUNCH_FAILED
                 999 -> true; // UNKNOWN
            default -> false;
        };
    }

    static void check(int code, String call) {
        if (code != SUCCESS) {
            throw error(code, call);
        }
    }

    static void checkAlloc(int code, String call, long bytes) {
        if (code == ERROR_OUT_OF_MEMORY) {
            throw new DeviceOutOfMemoryException(call + " of " + bytes + " bytes failed: " + errorName(code) + " (" + code
                    + "): " + errorString(code), bytes, errorName(code), code);
        }
        check(code, call);
    }

    static SluiceException error(int code, String call) {
        String name = errorName(code);
        String message = call + " failed: " + name + " (" + code + "): " + errorString(code);
        if (code == ERROR_OUT_OF_MEMORY) {
            return new DeviceOutOfMemoryException(message, 0, name, code);
        }
        if (code == ERROR_NOT_SUPPORTED) {
            return new UnsupportedOnBackendException(message);
        }
        return new DeviceException(message, name, code, isSticky(code), null);
    }

    /** A sticky {@link DeviceException} for any error a completion marker reports. */
    static DeviceException fault(int code, String call) {
        String name = errorName(code);
        return new DeviceException(call + " failed: " + name + " (" + code + "): " + errorString(code), name, code, true, null);
    }

    static String errorName(int code) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(A);
            int r = (int) GET_ERROR_NAME.invokeExact(code, p);
            if (r == SUCCESS && !p.get(ValueLayout.ADDRESS, 0).equals(MemorySegment.NULL)) {
                return p.get(ValueLayout.ADDRESS, 0).reinterpret(256).getString(0);
            }
        } catch (Throwable t) {
            // fall through to the numeric name
        }
        return "CUresult " + code;
    }

    static String errorString(int code) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(A);
            int r = (int) GET_ERROR_STRING.invokeExact(code, p);
            if (r == SUCCESS && !p.get(ValueLayout.ADDRESS, 0).equals(MemorySegment.NULL)) {
                return p.get(ValueLayout.ADDRESS, 0).reinterpret(1024).getString(0);
            }
        } catch (Throwable t) {
            // fall through
        }
        return "unknown error";
    }

    /** A downcall that threw: a bug in a binding, never a CUDA error. */
    static RuntimeException fatal(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException("CUDA driver call failed in the binding: " + t, t);
    }
}
