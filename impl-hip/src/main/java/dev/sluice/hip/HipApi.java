package dev.sluice.hip;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.sluice.SluiceException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The HIP runtime and hiprtc, one Java method per native call, each checking the status it returns: a
 * failure becomes a {@link SluiceException} through {@link HipApiErrors} naming the call, HIP's name of the
 * error and its code. Calls whose status is an answer rather than a failure ({@code hipEventQuery},
 * {@code hipGetDeviceCount}, hiprtc's) return it raw. Out-parameters go through a confined arena, or on hot
 * paths through a caller's scratch segment; nothing here allocates per call otherwise.
 *
 * <p>Grouped by concept like cudarc's {@code result.rs}: versions and errors, devices, streams, events,
 * memory, copies, modules and launches, graphs, hiprtc.
 */
final class HipApi {

    final HipApiLibrary lib;

    HipApi(HipApiLibrary lib) {
        this.lib = lib;
    }

    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException(t);
    }

    void check(int status, String call) {
        if (status != HipApiConstants.hipSuccess) {
            throw HipApiErrors.exception(this, call, status, -1);
        }
    }

    private static String cString(MemorySegment p) {
        return p.equals(MemorySegment.NULL) ? "" : p.reinterpret(Integer.MAX_VALUE).getString(0);
    }

    // ---------------------------------------------------------------- errors and versions

    String errorName(int code) {
        try {
            String s = cString((MemorySegment) lib.handle(HipApiSymbol.hipGetErrorName).invokeExact(code));
            return s.isEmpty() ? "hipError" + code : s;
        } catch (Throwable t) {
            return "hipError " + code;
        }
    }

    String errorString(int code) {
        try {
            return cString((MemorySegment) lib.handle(HipApiSymbol.hipGetErrorString).invokeExact(code));
        } catch (Throwable t) {
            return "";
        }
    }

    int runtimeVersion() {
        return intOut(HipApiSymbol.hipRuntimeGetVersion);
    }

    int driverVersion() {
        return intOut(HipApiSymbol.hipDriverGetVersion);
    }

    private int intOut(HipApiSymbol s) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(JAVA_INT);
            check((int) lib.handle(s).invokeExact(out), s.name());
            return out.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---------------------------------------------------------------- devices

    /** {@code hipGetDeviceCount}: the count, or the negated status if it failed (hipErrorNoDevice: -100). */
    int deviceCountOrNegatedStatus() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(JAVA_INT);
            int status = (int) lib.handle(HipApiSymbol.hipGetDeviceCount).invokeExact(out);
            return status == HipApiConstants.hipSuccess ? out.get(JAVA_INT, 0) : -status;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void setDevice(int device) {
        try {
            check((int) lib.handle(HipApiSymbol.hipSetDevice).invokeExact(device), "hipSetDevice(" + device + ")");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    String deviceName(int device) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(256);
            check((int) lib.handle(HipApiSymbol.hipDeviceGetName).invokeExact(out, 256, device), "hipDeviceGetName");
            return out.getString(0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    long deviceTotalMem(int device) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(JAVA_LONG);
            check((int) lib.handle(HipApiSymbol.hipDeviceTotalMem).invokeExact(out, device), "hipDeviceTotalMem");
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code hipDeviceGetAttribute}: the value, or throws. */
    int deviceAttribute(int attribute, int device) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(JAVA_INT);
            int status = (int) lib.handle(HipApiSymbol.hipDeviceGetAttribute).invokeExact(out, attribute, device);
            if (status != HipApiConstants.hipSuccess) {
                throw HipApiErrors.exception(this, "hipDeviceGetAttribute(" + attribute + ")", status, -1);
            }
            return out.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** free and total bytes of the current device. */
    long[] memGetInfo() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment free = a.allocate(JAVA_LONG);
            MemorySegment total = a.allocate(JAVA_LONG);
            check((int) lib.handle(HipApiSymbol.hipMemGetInfo).invokeExact(free, total), "hipMemGetInfo");
            return new long[] {free.get(JAVA_LONG, 0), total.get(JAVA_LONG, 0)};
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code hipDeviceGetLimit} of the current device: the value, or the negated status. */
    long deviceGetLimitOrNegatedStatus(int limit) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(JAVA_LONG);
            int status = (int) lib.handle(HipApiSymbol.hipDeviceGetLimit).invokeExact(out, limit);
            return status == HipApiConstants.hipSuccess ? out.get(JAVA_LONG, 0) : -status;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code hipDeviceSetLimit} of the current device: the raw status. */
    int deviceSetLimit(int limit, long value) {
        try {
            return (int) lib.handle(HipApiSymbol.hipDeviceSetLimit).invokeExact(limit, value);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    boolean deviceCanAccessPeer(int device, int peer) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(JAVA_INT);
            check((int) lib.handle(HipApiSymbol.hipDeviceCanAccessPeer).invokeExact(out, device, peer), "hipDeviceCanAccessPeer");
            return out.get(JAVA_INT, 0) != 0;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Enables access from the current device to {@code peer}; already enabled is not an error. */
    void deviceEnablePeerAccess(int peer) {
        try {
            int status = (int) lib.handle(HipApiSymbol.hipDeviceEnablePeerAccess).invokeExact(peer, 0);
            if (status != HipApiConstants.hipErrorPeerAccessAlreadyEnabled) {
                check(status, "hipDeviceEnablePeerAccess(" + peer + ")");
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** least and greatest stream priority of the current device. */
    int[] deviceStreamPriorityRange() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment least = a.allocate(JAVA_INT);
            MemorySegment greatest = a.allocate(JAVA_INT);
            check((int) lib.handle(HipApiSymbol.hipDeviceGetStreamPriorityRange).invokeExact(least, greatest),
                    "hipDeviceGetStreamPriorityRange");
            return new int[] {least.get(JAVA_INT, 0), greatest.get(JAVA_INT, 0)};
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void deviceReset() {
        try {
            check((int) lib.handle(HipApiSymbol.hipDeviceReset).invokeExact(), "hipDeviceReset");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---------------------------------------------------------------- streams

    long streamCreateWithPriority(int flags, int priority) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            check((int) lib.handle(HipApiSymbol.hipStreamCreateWithPriority).invokeExact(out, flags, priority),
                    "hipStreamCreateWithPriority");
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void streamDestroy(long stream) {
        try {
            check((int) lib.handle(HipApiSymbol.hipStreamDestroy).invokeExact(stream), "hipStreamDestroy");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void streamSynchronize(long stream) {
        try {
            check((int) lib.handle(HipApiSymbol.hipStreamSynchronize).invokeExact(stream), "hipStreamSynchronize");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void streamWaitEvent(long stream, long event) {
        try {
            check((int) lib.handle(HipApiSymbol.hipStreamWaitEvent).invokeExact(stream, event, 0), "hipStreamWaitEvent");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** A device write of {@code value} at {@code devicePointer} in stream order, fenced before (flags 0). */
    void streamWriteValue32(long stream, long devicePointer, int value) {
        try {
            check((int) lib.handle(HipApiSymbol.hipStreamWriteValue32).invokeExact(stream, devicePointer, value, 0),
                    "hipStreamWriteValue32");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void streamWaitValue32(long stream, long devicePointer, int value, int flags, int mask) {
        try {
            check((int) lib.handle(HipApiSymbol.hipStreamWaitValue32).invokeExact(stream, devicePointer, value, flags, mask),
                    "hipStreamWaitValue32");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---------------------------------------------------------------- events

    long eventCreateWithFlags(int flags) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            check((int) lib.handle(HipApiSymbol.hipEventCreateWithFlags).invokeExact(out, flags), "hipEventCreateWithFlags");
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void eventRecord(long event, long stream) {
        try {
            check((int) lib.handle(HipApiSymbol.hipEventRecord).invokeExact(event, stream), "hipEventRecord");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code hipEventQuery}'s raw status: hipSuccess, hipErrorNotReady, or an error. */
    int eventQuery(long event) {
        try {
            return (int) lib.handle(HipApiSymbol.hipEventQuery).invokeExact(event);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void eventSynchronize(long event) {
        try {
            check((int) lib.handle(HipApiSymbol.hipEventSynchronize).invokeExact(event), "hipEventSynchronize");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    float eventElapsedTime(long start, long stop) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(JAVA_FLOAT);
            check((int) lib.handle(HipApiSymbol.hipEventElapsedTime).invokeExact(out, start, stop), "hipEventElapsedTime");
            return out.get(JAVA_FLOAT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void eventDestroy(long event) {
        try {
            check((int) lib.handle(HipApiSymbol.hipEventDestroy).invokeExact(event), "hipEventDestroy");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---------------------------------------------------------------- memory

    long malloc(long bytes) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            int status = (int) lib.handle(HipApiSymbol.hipMalloc).invokeExact(out, bytes);
            if (status != HipApiConstants.hipSuccess) {
                throw HipApiErrors.exception(this, "hipMalloc(" + bytes + ")", status, bytes);
            }
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void free(long pointer) {
        try {
            check((int) lib.handle(HipApiSymbol.hipFree).invokeExact(pointer), "hipFree");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Stream-ordered allocation; {@code scratch} holds at least 8 bytes and belongs to the caller's stream. */
    long mallocAsync(long bytes, long stream, MemorySegment scratch) {
        try {
            int status = (int) lib.handle(HipApiSymbol.hipMallocAsync).invokeExact(scratch, bytes, stream);
            if (status != HipApiConstants.hipSuccess) {
                throw HipApiErrors.exception(this, "hipMallocAsync(" + bytes + ")", status, bytes);
            }
            return scratch.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void freeAsync(long pointer, long stream) {
        try {
            check((int) lib.handle(HipApiSymbol.hipFreeAsync).invokeExact(pointer, stream), "hipFreeAsync");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    long hostMalloc(long bytes, int flags) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            int status = (int) lib.handle(HipApiSymbol.hipHostMalloc).invokeExact(out, bytes, flags);
            if (status != HipApiConstants.hipSuccess) {
                throw HipApiErrors.exception(this, "hipHostMalloc(" + bytes + ")", status, bytes);
            }
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void hostFree(long pointer) {
        try {
            check((int) lib.handle(HipApiSymbol.hipHostFree).invokeExact(pointer), "hipHostFree");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void hostRegister(long pointer, long bytes, int flags) {
        try {
            int status = (int) lib.handle(HipApiSymbol.hipHostRegister).invokeExact(pointer, bytes, flags);
            if (status != HipApiConstants.hipSuccess) {
                throw HipApiErrors.exception(this, "hipHostRegister(" + bytes + " bytes)", status, bytes);
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void hostUnregister(long pointer) {
        try {
            check((int) lib.handle(HipApiSymbol.hipHostUnregister).invokeExact(pointer), "hipHostUnregister");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    long hostGetDevicePointer(long hostPointer) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            check((int) lib.handle(HipApiSymbol.hipHostGetDevicePointer).invokeExact(out, hostPointer, 0), "hipHostGetDevicePointer");
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---------------------------------------------------------------- copies and memsets

    void memcpyHtoDAsync(long dst, long src, long bytes, long stream) {
        try {
            check((int) lib.handle(HipApiSymbol.hipMemcpyHtoDAsync).invokeExact(dst, src, bytes, stream), "hipMemcpyHtoDAsync");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void memcpyDtoHAsync(long dst, long src, long bytes, long stream) {
        try {
            check((int) lib.handle(HipApiSymbol.hipMemcpyDtoHAsync).invokeExact(dst, src, bytes, stream), "hipMemcpyDtoHAsync");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void memcpyDtoDAsync(long dst, long src, long bytes, long stream) {
        try {
            check((int) lib.handle(HipApiSymbol.hipMemcpyDtoDAsync).invokeExact(dst, src, bytes, stream), "hipMemcpyDtoDAsync");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code height} rows of {@code widthBytes}, rows {@code sourcePitch} and {@code destinationPitch} bytes apart;
     * {@code kind} is a {@code hipMemcpyKind} of {@link HipApiConstants}.
     */
    void memcpy2DAsync(long destination, long destinationPitch, long source, long sourcePitch, long widthBytes, long height,
            int kind, long stream) {
        try {
            check((int) lib.handle(HipApiSymbol.hipMemcpy2DAsync).invokeExact(destination, destinationPitch, source,
                    sourcePitch, widthBytes, height, kind, stream), "hipMemcpy2DAsync");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void memcpyPeerAsync(long dst, int dstDevice, long src, int srcDevice, long bytes, long stream) {
        try {
            check((int) lib.handle(HipApiSymbol.hipMemcpyPeerAsync).invokeExact(dst, dstDevice, src, srcDevice, bytes, stream),
                    "hipMemcpyPeerAsync");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void memsetD8Async(long dst, byte value, long count, long stream) {
        try {
            check((int) lib.handle(HipApiSymbol.hipMemsetD8Async).invokeExact(dst, value, count, stream), "hipMemsetD8Async");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void memsetD16Async(long dst, short value, long count, long stream) {
        try {
            check((int) lib.handle(HipApiSymbol.hipMemsetD16Async).invokeExact(dst, value, count, stream), "hipMemsetD16Async");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void memsetD32Async(long dst, int value, long count, long stream) {
        try {
            check((int) lib.handle(HipApiSymbol.hipMemsetD32Async).invokeExact(dst, value, count, stream), "hipMemsetD32Async");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---------------------------------------------------------------- modules and launches

    /** {@code hipModuleLoadData}: the module, or throws with the raw status kept in the exception. */
    long moduleLoadData(MemorySegment image) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            check((int) lib.handle(HipApiSymbol.hipModuleLoadData).invokeExact(out, image), "hipModuleLoadData");
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    long moduleGetFunction(long module, String name) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            check((int) lib.handle(HipApiSymbol.hipModuleGetFunction).invokeExact(out, module, a.allocateFrom(name)),
                    "hipModuleGetFunction(" + name + ")");
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code hipModuleGetGlobal}: the address and size of module variable {@code name} in {@code out}; returns the
     * {@code hipError_t} (hipErrorNotFound where there is none).
     */
    int moduleGetGlobal(long module, String name, long[] out) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment address = a.allocate(JAVA_LONG);
            MemorySegment bytes = a.allocate(JAVA_LONG);
            int r = (int) lib.handle(HipApiSymbol.hipModuleGetGlobal).invokeExact(address, bytes, module, a.allocateFrom(name));
            out[0] = address.get(JAVA_LONG, 0);
            out[1] = bytes.get(JAVA_LONG, 0);
            return r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void profiler(boolean start) {
        try {
            check(start ? (int) lib.handle(HipApiSymbol.hipProfilerStart).invokeExact()
                    : (int) lib.handle(HipApiSymbol.hipProfilerStop).invokeExact(), start ? "hipProfilerStart" : "hipProfilerStop");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void moduleUnload(long module) {
        try {
            check((int) lib.handle(HipApiSymbol.hipModuleUnload).invokeExact(module), "hipModuleUnload");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    int funcGetAttribute(int attribute, long function) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(JAVA_INT);
            check((int) lib.handle(HipApiSymbol.hipFuncGetAttribute).invokeExact(out, attribute, function), "hipFuncGetAttribute");
            return out.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void moduleLaunchKernel(long function, int gx, int gy, int gz, int bx, int by, int bz, int sharedBytes, long stream,
            long kernelParams) {
        try {
            check((int) lib.handle(HipApiSymbol.hipModuleLaunchKernel).invokeExact(function, gx, gy, gz, bx, by, bz, sharedBytes,
                    stream, kernelParams, 0L), "hipModuleLaunchKernel");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void moduleLaunchCooperativeKernel(long function, int gx, int gy, int gz, int bx, int by, int bz, int sharedBytes,
            long stream, long kernelParams) {
        try {
            check((int) lib.handle(HipApiSymbol.hipModuleLaunchCooperativeKernel).invokeExact(function, gx, gy, gz, bx, by, bz,
                    sharedBytes, stream, kernelParams), "hipModuleLaunchCooperativeKernel");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---------------------------------------------------------------- graphs

    void streamBeginCapture(long stream, int mode) {
        try {
            check((int) lib.handle(HipApiSymbol.hipStreamBeginCapture).invokeExact(stream, mode), "hipStreamBeginCapture");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    long streamEndCapture(long stream) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            check((int) lib.handle(HipApiSymbol.hipStreamEndCapture).invokeExact(stream, out), "hipStreamEndCapture");
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    long graphInstantiate(long graph) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            check((int) lib.handle(HipApiSymbol.hipGraphInstantiate).invokeExact(out, graph, MemorySegment.NULL,
                    MemorySegment.NULL, 0L), "hipGraphInstantiate");
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** An upcall stub that lives as long as the process: the callback of host nodes ({@code HostNodes}). */
    static MemorySegment upcallStub(MethodHandle target, FunctionDescriptor type) {
        return Linker.nativeLinker().upcallStub(target, type, Arena.global());
    }

    /**
     * {@code hipLaunchHostFunc}: the raw status, so that a runtime that cannot capture it can be told apart.
     *
     * @throws dev.sluice.UnsupportedOnBackendException if the runtime does not export it
     */
    int launchHostFunc(long stream, long function, long userData) {
        try {
            return (int) lib.handle(HipApiSymbol.hipLaunchHostFunc).invokeExact(stream, function, userData);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void graphLaunch(long exec, long stream) {
        try {
            check((int) lib.handle(HipApiSymbol.hipGraphLaunch).invokeExact(exec, stream), "hipGraphLaunch");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void graphExecDestroy(long exec) {
        try {
            check((int) lib.handle(HipApiSymbol.hipGraphExecDestroy).invokeExact(exec), "hipGraphExecDestroy");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void graphDestroy(long graph) {
        try {
            check((int) lib.handle(HipApiSymbol.hipGraphDestroy).invokeExact(graph), "hipGraphDestroy");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---------------------------------------------------------------- graphs built node by node (repeated work)
    // Adding and updating a node returns the raw status: a runtime that cannot describe a step (a kernel node that
    // takes no module function, a refused update) is an answer, which makes the work fall back or rebuild.

    long graphCreate() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment out = a.allocate(ADDRESS);
            check((int) lib.handle(HipApiSymbol.hipGraphCreate).invokeExact(out, 0), "hipGraphCreate");
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code hipGraphAddKernelNode}: the node goes to {@code nodeOut}, after the {@code count} nodes at
     * {@code dependencies} (NULL for none); {@code params} a {@link HipApiNodeParams#kernel}.
     */
    int graphAddKernelNode(MemorySegment nodeOut, long graph, MemorySegment dependencies, long count, MemorySegment params) {
        try {
            return (int) lib.handle(HipApiSymbol.hipGraphAddKernelNode).invokeExact(nodeOut, graph, dependencies, count, params);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code hipGraphAddMemsetNode}, as {@link #graphAddKernelNode}; {@code params} a {@link HipApiNodeParams#memset}. */
    int graphAddMemsetNode(MemorySegment nodeOut, long graph, MemorySegment dependencies, long count, MemorySegment params) {
        try {
            return (int) lib.handle(HipApiSymbol.hipGraphAddMemsetNode).invokeExact(nodeOut, graph, dependencies, count, params);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code hipGraphAddMemcpyNode1D}, as {@link #graphAddKernelNode}; {@code kind} a {@code hipMemcpyKind}. */
    int graphAddMemcpyNode1D(MemorySegment nodeOut, long graph, MemorySegment dependencies, long count, long destination,
            long source, long bytes, int kind) {
        try {
            return (int) lib.handle(HipApiSymbol.hipGraphAddMemcpyNode1D).invokeExact(nodeOut, graph, dependencies, count,
                    destination, source, bytes, kind);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    int graphExecKernelNodeSetParams(long exec, long node, MemorySegment params) {
        try {
            return (int) lib.handle(HipApiSymbol.hipGraphExecKernelNodeSetParams).invokeExact(exec, node, params);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    int graphExecMemsetNodeSetParams(long exec, long node, MemorySegment params) {
        try {
            return (int) lib.handle(HipApiSymbol.hipGraphExecMemsetNodeSetParams).invokeExact(exec, node, params);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    int graphExecMemcpyNodeSetParams1D(long exec, long node, long destination, long source, long bytes, int kind) {
        try {
            return (int) lib.handle(HipApiSymbol.hipGraphExecMemcpyNodeSetParams1D).invokeExact(exec, node, destination, source,
                    bytes, kind);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---------------------------------------------------------------- hiprtc (raw statuses; KernelCompiler checks them)

    String hiprtcErrorString(int result) {
        try {
            return cString((MemorySegment) lib.handle(HipApiSymbol.hiprtcGetErrorString).invokeExact(result));
        } catch (Throwable t) {
            return "hiprtcResult " + result;
        }
    }

    /** "major.minor" of hiprtc. */
    String hiprtcVersion() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment major = a.allocate(JAVA_INT);
            MemorySegment minor = a.allocate(JAVA_INT);
            int r = (int) lib.handle(HipApiSymbol.hiprtcVersion).invokeExact(major, minor);
            return r == HipApiConstants.HIPRTC_SUCCESS ? major.get(JAVA_INT, 0) + "." + minor.get(JAVA_INT, 0) : "unknown";
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    int hiprtcCreateProgram(MemorySegment progOut, MemorySegment source, MemorySegment name) {
        try {
            return (int) lib.handle(HipApiSymbol.hiprtcCreateProgram).invokeExact(progOut, source, name, 0, MemorySegment.NULL,
                    MemorySegment.NULL);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    int hiprtcCompileProgram(long prog, int numOptions, MemorySegment options) {
        try {
            return (int) lib.handle(HipApiSymbol.hiprtcCompileProgram).invokeExact(prog, numOptions, options);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    int hiprtcGetProgramLogSize(long prog, MemorySegment sizeOut) {
        try {
            return (int) lib.handle(HipApiSymbol.hiprtcGetProgramLogSize).invokeExact(prog, sizeOut);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    int hiprtcGetProgramLog(long prog, MemorySegment log) {
        try {
            return (int) lib.handle(HipApiSymbol.hiprtcGetProgramLog).invokeExact(prog, log);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    int hiprtcGetCodeSize(long prog, MemorySegment sizeOut) {
        try {
            return (int) lib.handle(HipApiSymbol.hiprtcGetCodeSize).invokeExact(prog, sizeOut);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    int hiprtcGetCode(long prog, MemorySegment code) {
        try {
            return (int) lib.handle(HipApiSymbol.hiprtcGetCode).invokeExact(prog, code);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    int hiprtcDestroyProgram(MemorySegment progInOut) {
        try {
            return (int) lib.handle(HipApiSymbol.hiprtcDestroyProgram).invokeExact(progInOut);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }
}
