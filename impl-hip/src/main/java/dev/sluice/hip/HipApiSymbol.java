package dev.sluice.hip;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.util.Arrays;
import java.util.List;

/**
 * Every native function the HIP backend calls, with its C prototype as HIP's own headers declare it
 * ({@code hip/hip_runtime_api.h} and {@code hip/hiprtc.h} of HIP 5.2, kept in
 * {@code src/test/native/include}). Pointers passed by value (streams, events, device and host
 * addresses) are bound as {@code long}, out-parameters and strings as {@code MemorySegment}; the ABI is
 * the same on x86-64 and AArch64. {@code hipError_t}, {@code hiprtcResult}, enums and {@code unsigned int}
 * are {@code int}; {@code size_t} is {@code long}.
 *
 * <p>Optional symbols are those that appeared after HIP 5.2 (the version Debian ships and CI checks), and those
 * that only one feature needs, which falls back or is reported unsupported without them (host nodes, repeated work's
 * graphs): the backend uses them when present, and a runtime without them still loads.
 */
enum HipApiSymbol {

    // ---------------------------------------------------------------- errors and versions
    /** {@code const char* hipGetErrorName(hipError_t)} */
    hipGetErrorName(Lib.HIP, ADDRESS, JAVA_INT),
    /** {@code const char* hipGetErrorString(hipError_t)} */
    hipGetErrorString(Lib.HIP, ADDRESS, JAVA_INT),
    /** {@code hipError_t hipRuntimeGetVersion(int* runtimeVersion)} */
    hipRuntimeGetVersion(Lib.HIP, JAVA_INT, ADDRESS),
    /** {@code hipError_t hipDriverGetVersion(int* driverVersion)} */
    hipDriverGetVersion(Lib.HIP, JAVA_INT, ADDRESS),

    // ---------------------------------------------------------------- devices
    /** {@code hipError_t hipGetDeviceCount(int* count)} */
    hipGetDeviceCount(Lib.HIP, JAVA_INT, ADDRESS),
    /** {@code hipError_t hipSetDevice(int deviceId)} */
    hipSetDevice(Lib.HIP, JAVA_INT, JAVA_INT),
    /** {@code hipError_t hipDeviceGetName(char* name, int len, hipDevice_t device)} */
    hipDeviceGetName(Lib.HIP, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
    /** {@code hipError_t hipDeviceTotalMem(size_t* bytes, hipDevice_t device)} */
    hipDeviceTotalMem(Lib.HIP, JAVA_INT, ADDRESS, JAVA_INT),
    /** {@code hipError_t hipDeviceGetAttribute(int* pi, hipDeviceAttribute_t attr, int deviceId)} */
    hipDeviceGetAttribute(Lib.HIP, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
    /** {@code hipError_t hipMemGetInfo(size_t* free, size_t* total)} */
    hipMemGetInfo(Lib.HIP, JAVA_INT, ADDRESS, ADDRESS),
    /** {@code hipError_t hipDeviceGetLimit(size_t* pValue, enum hipLimit_t limit)} */
    hipDeviceGetLimit(Lib.HIP, JAVA_INT, ADDRESS, JAVA_INT),
    /** {@code hipError_t hipDeviceSetLimit(enum hipLimit_t limit, size_t value)}: HIP 5.3 and later. */
    hipDeviceSetLimit(Lib.HIP, true, JAVA_INT, JAVA_INT, JAVA_LONG),
    /** {@code hipError_t hipDeviceCanAccessPeer(int* canAccessPeer, int deviceId, int peerDeviceId)} */
    hipDeviceCanAccessPeer(Lib.HIP, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
    /** {@code hipError_t hipDeviceEnablePeerAccess(int peerDeviceId, unsigned int flags)} */
    hipDeviceEnablePeerAccess(Lib.HIP, JAVA_INT, JAVA_INT, JAVA_INT),
    /** {@code hipError_t hipDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority)} */
    hipDeviceGetStreamPriorityRange(Lib.HIP, JAVA_INT, ADDRESS, ADDRESS),
    /** {@code hipError_t hipDeviceReset(void)} */
    hipDeviceReset(Lib.HIP, JAVA_INT),

    // ---------------------------------------------------------------- streams
    /** {@code hipError_t hipStreamCreateWithPriority(hipStream_t* stream, unsigned int flags, int priority)} */
    hipStreamCreateWithPriority(Lib.HIP, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
    /** {@code hipError_t hipStreamDestroy(hipStream_t stream)} */
    hipStreamDestroy(Lib.HIP, JAVA_INT, JAVA_LONG),
    /** {@code hipError_t hipStreamSynchronize(hipStream_t stream)} */
    hipStreamSynchronize(Lib.HIP, JAVA_INT, JAVA_LONG),
    /** {@code hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags)} */
    hipStreamWaitEvent(Lib.HIP, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT),
    /**
     * {@code hipError_t hipStreamWaitValue32(hipStream_t stream, void* ptr, uint32_t value, unsigned int flags,
     * uint32_t mask)}
     */
    hipStreamWaitValue32(Lib.HIP, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT),
    /**
     * {@code hipError_t hipStreamWriteValue32(hipStream_t stream, void* ptr, uint32_t value, unsigned int flags)}: optional,
     * as only the completion counters need it, and without it markers are polled through their events.
     */
    hipStreamWriteValue32(Lib.HIP, true, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT),

    // ---------------------------------------------------------------- events
    /** {@code hipError_t hipEventCreateWithFlags(hipEvent_t* event, unsigned flags)} */
    hipEventCreateWithFlags(Lib.HIP, JAVA_INT, ADDRESS, JAVA_INT),
    /** {@code hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream)} */
    hipEventRecord(Lib.HIP, JAVA_INT, JAVA_LONG, JAVA_LONG),
    /** {@code hipError_t hipEventQuery(hipEvent_t event)} */
    hipEventQuery(Lib.HIP, JAVA_INT, JAVA_LONG),
    /** {@code hipError_t hipEventSynchronize(hipEvent_t event)} */
    hipEventSynchronize(Lib.HIP, JAVA_INT, JAVA_LONG),
    /** {@code hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop)} */
    hipEventElapsedTime(Lib.HIP, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG),
    /** {@code hipError_t hipEventDestroy(hipEvent_t event)} */
    hipEventDestroy(Lib.HIP, JAVA_INT, JAVA_LONG),

    // ---------------------------------------------------------------- memory
    /** {@code hipError_t hipMalloc(void** ptr, size_t size)} */
    hipMalloc(Lib.HIP, JAVA_INT, ADDRESS, JAVA_LONG),
    /** {@code hipError_t hipFree(void* ptr)} */
    hipFree(Lib.HIP, JAVA_INT, JAVA_LONG),
    /** {@code hipError_t hipMallocAsync(void** dev_ptr, size_t size, hipStream_t stream)} */
    hipMallocAsync(Lib.HIP, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG),
    /** {@code hipError_t hipFreeAsync(void* dev_ptr, hipStream_t stream)} */
    hipFreeAsync(Lib.HIP, JAVA_INT, JAVA_LONG, JAVA_LONG),
    /** {@code hipError_t hipHostMalloc(void** ptr, size_t size, unsigned int flags)} */
    hipHostMalloc(Lib.HIP, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT),
    /** {@code hipError_t hipHostFree(void* ptr)} */
    hipHostFree(Lib.HIP, JAVA_INT, JAVA_LONG),
    /** {@code hipError_t hipHostRegister(void* hostPtr, size_t sizeBytes, unsigned int flags)} */
    hipHostRegister(Lib.HIP, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT),
    /** {@code hipError_t hipHostUnregister(void* hostPtr)} */
    hipHostUnregister(Lib.HIP, JAVA_INT, JAVA_LONG),
    /** {@code hipError_t hipHostGetDevicePointer(void** devPtr, void* hstPtr, unsigned int flags)} */
    hipHostGetDevicePointer(Lib.HIP, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT),

    // ---------------------------------------------------------------- copies and memsets
    /** {@code hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void* src, size_t sizeBytes, hipStream_t stream)} */
    hipMemcpyHtoDAsync(Lib.HIP, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
    /** {@code hipError_t hipMemcpyDtoHAsync(void* dst, hipDeviceptr_t src, size_t sizeBytes, hipStream_t stream)} */
    hipMemcpyDtoHAsync(Lib.HIP, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
    /** {@code hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes, hipStream_t stream)} */
    hipMemcpyDtoDAsync(Lib.HIP, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
    /**
     * {@code hipError_t hipMemcpyPeerAsync(void* dst, int dstDeviceId, const void* src, int srcDevice,
     * size_t sizeBytes, hipStream_t stream)}
     */
    hipMemcpyPeerAsync(Lib.HIP, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG),
    /**
     * {@code hipError_t hipMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
     * size_t height, hipMemcpyKind kind, hipStream_t stream)}
     */
    hipMemcpy2DAsync(Lib.HIP, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG),
    /** {@code hipError_t hipMemsetD8Async(hipDeviceptr_t dest, unsigned char value, size_t count, hipStream_t stream)} */
    hipMemsetD8Async(Lib.HIP, JAVA_INT, JAVA_LONG, JAVA_BYTE, JAVA_LONG, JAVA_LONG),
    /** {@code hipError_t hipMemsetD16Async(hipDeviceptr_t dest, unsigned short value, size_t count, hipStream_t stream)} */
    hipMemsetD16Async(Lib.HIP, JAVA_INT, JAVA_LONG, JAVA_SHORT, JAVA_LONG, JAVA_LONG),
    /** {@code hipError_t hipMemsetD32Async(hipDeviceptr_t dst, int value, size_t count, hipStream_t stream)} */
    hipMemsetD32Async(Lib.HIP, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG),

    // ---------------------------------------------------------------- modules and launches
    /** {@code hipError_t hipModuleLoadData(hipModule_t* module, const void* image)} */
    hipModuleLoadData(Lib.HIP, JAVA_INT, ADDRESS, ADDRESS),
    /** {@code hipError_t hipModuleGetFunction(hipFunction_t* function, hipModule_t module, const char* kname)} */
    hipModuleGetFunction(Lib.HIP, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS),
    /** {@code hipError_t hipProfilerStart(void)} */
    hipProfilerStart(Lib.HIP, JAVA_INT),
    /** {@code hipError_t hipProfilerStop(void)} */
    hipProfilerStop(Lib.HIP, JAVA_INT),
    /** {@code hipError_t hipModuleGetGlobal(hipDeviceptr_t* dptr, size_t* bytes, hipModule_t hmod, const char* name)} */
    hipModuleGetGlobal(Lib.HIP, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS),
    /** {@code hipError_t hipModuleUnload(hipModule_t module)} */
    hipModuleUnload(Lib.HIP, JAVA_INT, JAVA_LONG),
    /** {@code hipError_t hipFuncGetAttribute(int* value, hipFunction_attribute attrib, hipFunction_t hfunc)} */
    hipFuncGetAttribute(Lib.HIP, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG),
    /**
     * {@code hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gridDimX, unsigned int gridDimY,
     * unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
     * unsigned int sharedMemBytes, hipStream_t stream, void** kernelParams, void** extra)}
     */
    hipModuleLaunchKernel(Lib.HIP, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT,
            JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG),
    /**
     * {@code hipError_t hipModuleLaunchCooperativeKernel(hipFunction_t f, unsigned int gridDimX, unsigned int gridDimY,
     * unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
     * unsigned int sharedMemBytes, hipStream_t stream, void** kernelParams)}: HIP 6 and later.
     */
    hipModuleLaunchCooperativeKernel(Lib.HIP, true, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT,
            JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG),

    // ---------------------------------------------------------------- graphs
    /** {@code hipError_t hipStreamBeginCapture(hipStream_t stream, hipStreamCaptureMode mode)} */
    hipStreamBeginCapture(Lib.HIP, JAVA_INT, JAVA_LONG, JAVA_INT),
    /** {@code hipError_t hipStreamEndCapture(hipStream_t stream, hipGraph_t* pGraph)} */
    hipStreamEndCapture(Lib.HIP, JAVA_INT, JAVA_LONG, ADDRESS),
    /**
     * {@code hipError_t hipGraphInstantiate(hipGraphExec_t* pGraphExec, hipGraph_t graph, hipGraphNode_t* pErrorNode,
     * char* pLogBuffer, size_t bufferSize)}
     */
    hipGraphInstantiate(Lib.HIP, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG),
    /**
     * {@code hipError_t hipLaunchHostFunc(hipStream_t stream, hipHostFn_t fn, void* userData)}: declared by HIP 5.2's
     * header but not exported by Debian's build of it; optional, as only graphs with host steps need it: a runtime without
     * it refuses those at capture, not at load.
     */
    hipLaunchHostFunc(Lib.HIP, true, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG),
    /** {@code hipError_t hipGraphLaunch(hipGraphExec_t graphExec, hipStream_t stream)} */
    hipGraphLaunch(Lib.HIP, JAVA_INT, JAVA_LONG, JAVA_LONG),
    /** {@code hipError_t hipGraphExecDestroy(hipGraphExec_t graphExec)} */
    hipGraphExecDestroy(Lib.HIP, JAVA_INT, JAVA_LONG),
    /** {@code hipError_t hipGraphDestroy(hipGraph_t graph)} */
    hipGraphDestroy(Lib.HIP, JAVA_INT, JAVA_LONG),

    // ---------------------------------------------------------------- graphs built node by node (repeated work)
    // All in HIP 5.2, optional all the same: only repeated work's replay needs them, and without them it falls back.
    /** {@code hipError_t hipGraphCreate(hipGraph_t* pGraph, unsigned int flags)} */
    hipGraphCreate(Lib.HIP, true, JAVA_INT, ADDRESS, JAVA_INT),
    /**
     * {@code hipError_t hipGraphAddKernelNode(hipGraphNode_t* pGraphNode, hipGraph_t graph,
     * const hipGraphNode_t* pDependencies, size_t numDependencies, const hipKernelNodeParams* pNodeParams)}
     */
    hipGraphAddKernelNode(Lib.HIP, true, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS),
    /**
     * {@code hipError_t hipGraphAddMemsetNode(hipGraphNode_t* pGraphNode, hipGraph_t graph,
     * const hipGraphNode_t* pDependencies, size_t numDependencies, const hipMemsetParams* pMemsetParams)}
     */
    hipGraphAddMemsetNode(Lib.HIP, true, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS),
    /**
     * {@code hipError_t hipGraphAddMemcpyNode1D(hipGraphNode_t* pGraphNode, hipGraph_t graph,
     * const hipGraphNode_t* pDependencies, size_t numDependencies, void* dst, const void* src, size_t count,
     * hipMemcpyKind kind)}
     */
    hipGraphAddMemcpyNode1D(Lib.HIP, true, JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
            JAVA_INT),
    /**
     * {@code hipError_t hipGraphExecKernelNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
     * const hipKernelNodeParams* pNodeParams)}
     */
    hipGraphExecKernelNodeSetParams(Lib.HIP, true, JAVA_INT, JAVA_LONG, JAVA_LONG, ADDRESS),
    /**
     * {@code hipError_t hipGraphExecMemsetNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
     * const hipMemsetParams* pNodeParams)}
     */
    hipGraphExecMemsetNodeSetParams(Lib.HIP, true, JAVA_INT, JAVA_LONG, JAVA_LONG, ADDRESS),
    /**
     * {@code hipError_t hipGraphExecMemcpyNodeSetParams1D(hipGraphExec_t hGraphExec, hipGraphNode_t node, void* dst,
     * const void* src, size_t count, hipMemcpyKind kind)}
     */
    hipGraphExecMemcpyNodeSetParams1D(Lib.HIP, true, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
            JAVA_INT),

    // ---------------------------------------------------------------- hiprtc
    /** {@code const char* hiprtcGetErrorString(hiprtcResult result)} */
    hiprtcGetErrorString(Lib.HIPRTC, ADDRESS, JAVA_INT),
    /** {@code hiprtcResult hiprtcVersion(int* major, int* minor)} */
    hiprtcVersion(Lib.HIPRTC, JAVA_INT, ADDRESS, ADDRESS),
    /**
     * {@code hiprtcResult hiprtcCreateProgram(hiprtcProgram* prog, const char* src, const char* name, int numHeaders,
     * const char** headers, const char** includeNames)}
     */
    hiprtcCreateProgram(Lib.HIPRTC, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS),
    /** {@code hiprtcResult hiprtcCompileProgram(hiprtcProgram prog, int numOptions, const char** options)} */
    hiprtcCompileProgram(Lib.HIPRTC, JAVA_INT, JAVA_LONG, JAVA_INT, ADDRESS),
    /** {@code hiprtcResult hiprtcGetProgramLogSize(hiprtcProgram prog, size_t* logSizeRet)} */
    hiprtcGetProgramLogSize(Lib.HIPRTC, JAVA_INT, JAVA_LONG, ADDRESS),
    /** {@code hiprtcResult hiprtcGetProgramLog(hiprtcProgram prog, char* log)} */
    hiprtcGetProgramLog(Lib.HIPRTC, JAVA_INT, JAVA_LONG, ADDRESS),
    /** {@code hiprtcResult hiprtcGetCodeSize(hiprtcProgram prog, size_t* codeSizeRet)} */
    hiprtcGetCodeSize(Lib.HIPRTC, JAVA_INT, JAVA_LONG, ADDRESS),
    /** {@code hiprtcResult hiprtcGetCode(hiprtcProgram prog, char* code)} */
    hiprtcGetCode(Lib.HIPRTC, JAVA_INT, JAVA_LONG, ADDRESS),
    /** {@code hiprtcResult hiprtcDestroyProgram(hiprtcProgram* prog)} */
    hiprtcDestroyProgram(Lib.HIPRTC, JAVA_INT, ADDRESS);

    /** Which library a symbol comes from. */
    enum Lib {
        /** libamdhip64: the HIP runtime. */
        HIP,
        /** libhiprtc (HIP 5.3 and later), or libamdhip64 itself (HIP 5.2 and earlier). */
        HIPRTC
    }

    final Lib lib;
    final boolean optional;
    final FunctionDescriptor descriptor;

    HipApiSymbol(Lib lib, MemoryLayout result, MemoryLayout... args) {
        this(lib, false, result, args);
    }

    HipApiSymbol(Lib lib, boolean optional, MemoryLayout result, MemoryLayout... args) {
        this.lib = lib;
        this.optional = optional;
        this.descriptor = FunctionDescriptor.of(result, args);
    }

    /** The symbols of {@code lib}, required and optional. */
    static List<HipApiSymbol> of(Lib lib) {
        return Arrays.stream(values()).filter(s -> s.lib == lib).toList();
    }
}
