/*
 * hip_over_cuda.c: the HIP runtime and hiprtc functions that Sluice's HIP backend calls, implemented over
 * the CUDA driver API and NVRTC, so that the backend can be run end to end on an NVIDIA GPU (there is no AMD
 * GPU to test on). A test library, never shipped.
 *
 * It is compiled against AMD's own prototypes (include/hip, HIP 5.2 from Debian, plus include/
 * hip_after_5_2.h) with -D__HIP_PLATFORM_AMD__, as C: a definition whose signature differs from the HIP
 * declaration is a hard error ("conflicting types"), so every function exported here has exactly the HIP
 * signature the Java bindings were written against. Only what the backend uses is implemented, with HIP's
 * semantics where they differ from CUDA's (a current device per thread, hipErrorNoDevice for zero devices,
 * hipStreamWaitValue32's mask, HIP's error codes and names).
 *
 * Build (see build-hip-over-cuda.sh):
 *   gcc -std=gnu11 -O2 -fPIC -shared -Wall -Wextra -Werror -D__HIP_PLATFORM_AMD__ \
 *       -I impl-hip/src/test/native/include -I /usr/local/cuda/include \
 *       impl-hip/src/test/native/hip_over_cuda.c -o libhip_over_cuda.so -lcuda -ldl -lpthread
 * NVRTC is loaded with dlopen ($SLUICE_NVRTC, libnvrtc.so, .so.13, .so.12, also under /usr/local/cuda/lib64),
 * so neither nvrtc.h nor -lnvrtc is needed.
 */
#include <hip/hip_runtime_api.h>
#include <hip/hiprtc.h>
#include "hip_after_5_2.h"

#include <cuda.h>
#include <cudaProfiler.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------- errors */

static hipError_t map(CUresult r) {
    switch (r) {
    case CUDA_SUCCESS: return hipSuccess;
    case CUDA_ERROR_INVALID_VALUE: return hipErrorInvalidValue;
    case CUDA_ERROR_OUT_OF_MEMORY: return hipErrorOutOfMemory;
    case CUDA_ERROR_NOT_INITIALIZED: return hipErrorNotInitialized;
    case CUDA_ERROR_DEINITIALIZED: return hipErrorDeinitialized;
    case CUDA_ERROR_NO_DEVICE: return hipErrorNoDevice;
    case CUDA_ERROR_INVALID_DEVICE: return hipErrorInvalidDevice;
    case CUDA_ERROR_INVALID_IMAGE: return hipErrorInvalidImage;
    case CUDA_ERROR_INVALID_CONTEXT: return hipErrorInvalidContext;
    case CUDA_ERROR_CONTEXT_ALREADY_CURRENT: return hipErrorContextAlreadyCurrent;
    case CUDA_ERROR_MAP_FAILED: return hipErrorMapFailed;
    case CUDA_ERROR_UNMAP_FAILED: return hipErrorUnmapFailed;
    case CUDA_ERROR_NO_BINARY_FOR_GPU: return hipErrorNoBinaryForGpu;
    case CUDA_ERROR_ECC_UNCORRECTABLE: return hipErrorECCNotCorrectable;
    case CUDA_ERROR_UNSUPPORTED_LIMIT: return hipErrorUnsupportedLimit;
    case CUDA_ERROR_CONTEXT_ALREADY_IN_USE: return hipErrorContextAlreadyInUse;
    case CUDA_ERROR_PEER_ACCESS_UNSUPPORTED: return hipErrorPeerAccessUnsupported;
    case CUDA_ERROR_INVALID_PTX: return hipErrorInvalidKernelFile;
    case CUDA_ERROR_INVALID_SOURCE: return hipErrorInvalidSource;
    case CUDA_ERROR_FILE_NOT_FOUND: return hipErrorFileNotFound;
    case CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND: return hipErrorSharedObjectSymbolNotFound;
    case CUDA_ERROR_SHARED_OBJECT_INIT_FAILED: return hipErrorSharedObjectInitFailed;
    case CUDA_ERROR_OPERATING_SYSTEM: return hipErrorOperatingSystem;
    case CUDA_ERROR_INVALID_HANDLE: return hipErrorInvalidHandle;
    case CUDA_ERROR_ILLEGAL_STATE: return hipErrorIllegalState;
    case CUDA_ERROR_NOT_FOUND: return hipErrorNotFound;
    case CUDA_ERROR_NOT_READY: return hipErrorNotReady;
    case CUDA_ERROR_ILLEGAL_ADDRESS: return hipErrorIllegalAddress;
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: return hipErrorLaunchOutOfResources;
    case CUDA_ERROR_LAUNCH_TIMEOUT: return hipErrorLaunchTimeOut;
    case CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED: return hipErrorPeerAccessAlreadyEnabled;
    case CUDA_ERROR_PEER_ACCESS_NOT_ENABLED: return hipErrorPeerAccessNotEnabled;
    case CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE: return hipErrorSetOnActiveProcess;
    case CUDA_ERROR_CONTEXT_IS_DESTROYED: return hipErrorContextIsDestroyed;
    case CUDA_ERROR_ASSERT: return hipErrorAssert;
    case CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED: return hipErrorHostMemoryAlreadyRegistered;
    case CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED: return hipErrorHostMemoryNotRegistered;
    /* HIP 5.2 has no codes for CUDA's hardware exceptions: they are kernel failures, sticky like them */
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED: return hipErrorLaunchFailure;
    case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE: return hipErrorCooperativeLaunchTooLarge;
    case CUDA_ERROR_NOT_PERMITTED:
    case CUDA_ERROR_NOT_SUPPORTED: return hipErrorNotSupported;
    case CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED: return hipErrorStreamCaptureUnsupported;
    case CUDA_ERROR_STREAM_CAPTURE_INVALIDATED: return hipErrorStreamCaptureInvalidated;
    case CUDA_ERROR_STREAM_CAPTURE_MERGE: return hipErrorStreamCaptureMerge;
    case CUDA_ERROR_STREAM_CAPTURE_UNMATCHED: return hipErrorStreamCaptureUnmatched;
    case CUDA_ERROR_STREAM_CAPTURE_UNJOINED: return hipErrorStreamCaptureUnjoined;
    case CUDA_ERROR_STREAM_CAPTURE_ISOLATION: return hipErrorStreamCaptureIsolation;
    case CUDA_ERROR_STREAM_CAPTURE_IMPLICIT: return hipErrorStreamCaptureImplicit;
    case CUDA_ERROR_CAPTURED_EVENT: return hipErrorCapturedEvent;
    case CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD: return hipErrorStreamCaptureWrongThread;
    case CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE: return hipErrorGraphExecUpdateFailure;
    default: return hipErrorUnknown;
    }
}

/* Generated from hip/hip_runtime_api.h's hipError_t (the first name of each value). */
const char* hipGetErrorName(hipError_t hip_error) {
    switch (hip_error) {
    case hipSuccess: return "hipSuccess";
    case hipErrorInvalidValue: return "hipErrorInvalidValue";
    case hipErrorOutOfMemory: return "hipErrorOutOfMemory";
    case hipErrorNotInitialized: return "hipErrorNotInitialized";
    case hipErrorDeinitialized: return "hipErrorDeinitialized";
    case hipErrorProfilerDisabled: return "hipErrorProfilerDisabled";
    case hipErrorProfilerNotInitialized: return "hipErrorProfilerNotInitialized";
    case hipErrorProfilerAlreadyStarted: return "hipErrorProfilerAlreadyStarted";
    case hipErrorProfilerAlreadyStopped: return "hipErrorProfilerAlreadyStopped";
    case hipErrorInvalidConfiguration: return "hipErrorInvalidConfiguration";
    case hipErrorInvalidPitchValue: return "hipErrorInvalidPitchValue";
    case hipErrorInvalidSymbol: return "hipErrorInvalidSymbol";
    case hipErrorInvalidDevicePointer: return "hipErrorInvalidDevicePointer";
    case hipErrorInvalidMemcpyDirection: return "hipErrorInvalidMemcpyDirection";
    case hipErrorInsufficientDriver: return "hipErrorInsufficientDriver";
    case hipErrorMissingConfiguration: return "hipErrorMissingConfiguration";
    case hipErrorPriorLaunchFailure: return "hipErrorPriorLaunchFailure";
    case hipErrorInvalidDeviceFunction: return "hipErrorInvalidDeviceFunction";
    case hipErrorNoDevice: return "hipErrorNoDevice";
    case hipErrorInvalidDevice: return "hipErrorInvalidDevice";
    case hipErrorInvalidImage: return "hipErrorInvalidImage";
    case hipErrorInvalidContext: return "hipErrorInvalidContext";
    case hipErrorContextAlreadyCurrent: return "hipErrorContextAlreadyCurrent";
    case hipErrorMapFailed: return "hipErrorMapFailed";
    case hipErrorUnmapFailed: return "hipErrorUnmapFailed";
    case hipErrorArrayIsMapped: return "hipErrorArrayIsMapped";
    case hipErrorAlreadyMapped: return "hipErrorAlreadyMapped";
    case hipErrorNoBinaryForGpu: return "hipErrorNoBinaryForGpu";
    case hipErrorAlreadyAcquired: return "hipErrorAlreadyAcquired";
    case hipErrorNotMapped: return "hipErrorNotMapped";
    case hipErrorNotMappedAsArray: return "hipErrorNotMappedAsArray";
    case hipErrorNotMappedAsPointer: return "hipErrorNotMappedAsPointer";
    case hipErrorECCNotCorrectable: return "hipErrorECCNotCorrectable";
    case hipErrorUnsupportedLimit: return "hipErrorUnsupportedLimit";
    case hipErrorContextAlreadyInUse: return "hipErrorContextAlreadyInUse";
    case hipErrorPeerAccessUnsupported: return "hipErrorPeerAccessUnsupported";
    case hipErrorInvalidKernelFile: return "hipErrorInvalidKernelFile";
    case hipErrorInvalidGraphicsContext: return "hipErrorInvalidGraphicsContext";
    case hipErrorInvalidSource: return "hipErrorInvalidSource";
    case hipErrorFileNotFound: return "hipErrorFileNotFound";
    case hipErrorSharedObjectSymbolNotFound: return "hipErrorSharedObjectSymbolNotFound";
    case hipErrorSharedObjectInitFailed: return "hipErrorSharedObjectInitFailed";
    case hipErrorOperatingSystem: return "hipErrorOperatingSystem";
    case hipErrorInvalidHandle: return "hipErrorInvalidHandle";
    case hipErrorIllegalState: return "hipErrorIllegalState";
    case hipErrorNotFound: return "hipErrorNotFound";
    case hipErrorNotReady: return "hipErrorNotReady";
    case hipErrorIllegalAddress: return "hipErrorIllegalAddress";
    case hipErrorLaunchOutOfResources: return "hipErrorLaunchOutOfResources";
    case hipErrorLaunchTimeOut: return "hipErrorLaunchTimeOut";
    case hipErrorPeerAccessAlreadyEnabled: return "hipErrorPeerAccessAlreadyEnabled";
    case hipErrorPeerAccessNotEnabled: return "hipErrorPeerAccessNotEnabled";
    case hipErrorSetOnActiveProcess: return "hipErrorSetOnActiveProcess";
    case hipErrorContextIsDestroyed: return "hipErrorContextIsDestroyed";
    case hipErrorAssert: return "hipErrorAssert";
    case hipErrorHostMemoryAlreadyRegistered: return "hipErrorHostMemoryAlreadyRegistered";
    case hipErrorHostMemoryNotRegistered: return "hipErrorHostMemoryNotRegistered";
    case hipErrorLaunchFailure: return "hipErrorLaunchFailure";
    case hipErrorCooperativeLaunchTooLarge: return "hipErrorCooperativeLaunchTooLarge";
    case hipErrorNotSupported: return "hipErrorNotSupported";
    case hipErrorStreamCaptureUnsupported: return "hipErrorStreamCaptureUnsupported";
    case hipErrorStreamCaptureInvalidated: return "hipErrorStreamCaptureInvalidated";
    case hipErrorStreamCaptureMerge: return "hipErrorStreamCaptureMerge";
    case hipErrorStreamCaptureUnmatched: return "hipErrorStreamCaptureUnmatched";
    case hipErrorStreamCaptureUnjoined: return "hipErrorStreamCaptureUnjoined";
    case hipErrorStreamCaptureIsolation: return "hipErrorStreamCaptureIsolation";
    case hipErrorStreamCaptureImplicit: return "hipErrorStreamCaptureImplicit";
    case hipErrorCapturedEvent: return "hipErrorCapturedEvent";
    case hipErrorStreamCaptureWrongThread: return "hipErrorStreamCaptureWrongThread";
    case hipErrorGraphExecUpdateFailure: return "hipErrorGraphExecUpdateFailure";
    case hipErrorUnknown: return "hipErrorUnknown";
    case hipErrorRuntimeMemory: return "hipErrorRuntimeMemory";
    case hipErrorRuntimeOther: return "hipErrorRuntimeOther";
    default: return "hipErrorUnknown";
    }
}

const char* hipGetErrorString(hipError_t hipError) {
    switch (hipError) {
    case hipSuccess: return "no error";
    case hipErrorInvalidValue: return "invalid argument";
    case hipErrorOutOfMemory: return "out of memory";
    case hipErrorNoDevice: return "no ROCm-capable device is detected";
    case hipErrorInvalidDevice: return "invalid device ordinal";
    case hipErrorNotReady: return "device not ready";
    case hipErrorIllegalAddress: return "an illegal memory access was encountered";
    case hipErrorLaunchFailure: return "unspecified launch failure";
    case hipErrorNotSupported: return "operation not supported";
    default: return hipGetErrorName(hipError);
    }
}

/* ------------------------------------------------------------------------ devices and contexts */

#define MAX_DEVICES 64

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_init_done;
static CUresult g_init_result;
static CUcontext g_ctx[MAX_DEVICES];
static __thread int t_device; /* HIP: the current device is per thread, 0 until hipSetDevice */

static CUresult init(void) {
    pthread_mutex_lock(&g_lock);
    if (!g_init_done) {
        /* CUDA 12+ loads kernels lazily, at first use, and a lazy load may synchronise the context: a launch
           compiled while another stream waits on a host gate would deadlock. HIP on AMD loads a code object
           when hipModuleLoadData is called; eager loading gives the same behaviour here. */
        setenv("CUDA_MODULE_LOADING", "EAGER", 0);
        /* Streams share CUDA_DEVICE_MAX_CONNECTIONS hardware queues (8 by default); a stream held by
           hipStreamWaitValue32 holds its queue, and so every stream sharing it. HIP's tests gate dozens of
           streams at once: take the most queues the driver offers. */
        setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0);
        g_init_result = cuInit(0);
        g_init_done = 1;
    }
    CUresult r = g_init_result;
    pthread_mutex_unlock(&g_lock);
    return r;
}

/* The device's primary context, retained on first use (again after hipDeviceReset). */
static CUresult ctx_of(int device, CUcontext* out) {
    CUresult r = init();
    if (r != CUDA_SUCCESS) return r;
    if (device < 0 || device >= MAX_DEVICES) return CUDA_ERROR_INVALID_DEVICE;
    pthread_mutex_lock(&g_lock);
    if (g_ctx[device] == NULL) {
        CUdevice d;
        r = cuDeviceGet(&d, device);
        if (r == CUDA_SUCCESS) r = cuDevicePrimaryCtxRetain(&g_ctx[device], d);
    }
    *out = g_ctx[device];
    pthread_mutex_unlock(&g_lock);
    return r;
}

static CUresult make_current(CUcontext c) {
    CUcontext cur = NULL;
    cuCtxGetCurrent(&cur);
    return cur == c ? CUDA_SUCCESS : cuCtxSetCurrent(c);
}

/* Makes the calling thread's HIP device current for the driver API. */
static CUresult bind_device(void) {
    CUcontext c;
    CUresult r = ctx_of(t_device, &c);
    return r != CUDA_SUCCESS ? r : make_current(c);
}

/* Makes the stream's context current (HIP streams carry their device). */
static CUresult bind_stream(hipStream_t s) {
    if (s == NULL) return bind_device();
    CUresult r = init();
    if (r != CUDA_SUCCESS) return r;
    CUcontext c = NULL;
    r = cuStreamGetCtx((CUstream) s, &c);
    return r != CUDA_SUCCESS ? r : make_current(c);
}

#define TRY(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) return map(r_); } while (0)
#define DPTR(p) ((CUdeviceptr) (uintptr_t) (p))

hipError_t hipRuntimeGetVersion(int* runtimeVersion) {
    if (runtimeVersion == NULL) return hipErrorInvalidValue;
    *runtimeVersion = HIP_VERSION; /* the HIP API this library implements: the headers it was compiled against */
    return hipSuccess;
}

hipError_t hipDriverGetVersion(int* driverVersion) {
    if (driverVersion == NULL) return hipErrorInvalidValue;
    TRY(init());
    TRY(cuDriverGetVersion(driverVersion)); /* as HIP on NVIDIA does: the CUDA driver's version */
    return hipSuccess;
}

hipError_t hipGetDeviceCount(int* count) {
    if (count == NULL) return hipErrorInvalidValue;
    *count = 0;
    CUresult r = init();
    if (r != CUDA_SUCCESS) return r == CUDA_ERROR_NO_DEVICE ? hipErrorNoDevice : map(r);
    TRY(cuDeviceGetCount(count));
    return *count == 0 ? hipErrorNoDevice : hipSuccess;
}

hipError_t hipSetDevice(int deviceId) {
    int n = 0;
    hipError_t e = hipGetDeviceCount(&n);
    if (e != hipSuccess) return e;
    if (deviceId < 0 || deviceId >= n) return hipErrorInvalidDevice;
    t_device = deviceId;
    TRY(bind_device());
    return hipSuccess;
}

hipError_t hipDeviceGetName(char* name, int len, hipDevice_t device) {
    if (name == NULL || len <= 0) return hipErrorInvalidValue;
    TRY(init());
    CUdevice d;
    TRY(cuDeviceGet(&d, device));
    TRY(cuDeviceGetName(name, len, d));
    return hipSuccess;
}

hipError_t hipDeviceTotalMem(size_t* bytes, hipDevice_t device) {
    if (bytes == NULL) return hipErrorInvalidValue;
    TRY(init());
    CUdevice d;
    TRY(cuDeviceGet(&d, device));
    TRY(cuDeviceTotalMem(bytes, d));
    return hipSuccess;
}

/* HIP's attribute numbers are not CUDA's: each one the backend reads is translated by name. */
hipError_t hipDeviceGetAttribute(int* pi, hipDeviceAttribute_t attr, int deviceId) {
    if (pi == NULL) return hipErrorInvalidValue;
    CUdevice_attribute a;
    switch (attr) {
    case hipDeviceAttributeEccEnabled: a = CU_DEVICE_ATTRIBUTE_ECC_ENABLED; break;
    case hipDeviceAttributeAsyncEngineCount: a = CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT; break;
    case hipDeviceAttributeCanMapHostMemory: a = CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY; break;
    case hipDeviceAttributeClockRate: a = CU_DEVICE_ATTRIBUTE_CLOCK_RATE; break;
    case hipDeviceAttributeComputeMode: a = CU_DEVICE_ATTRIBUTE_COMPUTE_MODE; break;
    case hipDeviceAttributeConcurrentKernels: a = CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS; break;
    case hipDeviceAttributeCooperativeLaunch: a = CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH; break;
    case hipDeviceAttributeIntegrated: a = CU_DEVICE_ATTRIBUTE_INTEGRATED; break;
    case hipDeviceAttributeL2CacheSize: a = CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE; break;
    case hipDeviceAttributeComputeCapabilityMajor: a = CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR; break;
    case hipDeviceAttributeComputeCapabilityMinor: a = CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR; break;
    case hipDeviceAttributeManagedMemory: a = CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY; break;
    case hipDeviceAttributeMaxBlockDimX: a = CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X; break;
    case hipDeviceAttributeMaxBlockDimY: a = CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y; break;
    case hipDeviceAttributeMaxBlockDimZ: a = CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z; break;
    case hipDeviceAttributeMaxGridDimX: a = CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X; break;
    case hipDeviceAttributeMaxGridDimY: a = CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y; break;
    case hipDeviceAttributeMaxGridDimZ: a = CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z; break;
    case hipDeviceAttributeMaxThreadsPerBlock: a = CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK; break;
    case hipDeviceAttributeMaxThreadsPerMultiProcessor: a = CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR; break;
    case hipDeviceAttributeMemoryBusWidth: a = CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH; break;
    case hipDeviceAttributeMemoryClockRate: a = CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE; break;
    case hipDeviceAttributeMultiprocessorCount: a = CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT; break;
    case hipDeviceAttributePciBusId: a = CU_DEVICE_ATTRIBUTE_PCI_BUS_ID; break;
    case hipDeviceAttributePciDeviceId: a = CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID; break;
    case hipDeviceAttributePciDomainID: a = CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID; break;
    case hipDeviceAttributeMaxRegistersPerBlock: a = CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK; break;
    case hipDeviceAttributeMaxSharedMemoryPerBlock: a = CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK; break;
    case hipDeviceAttributeSharedMemPerBlockOptin: a = CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN; break;
    case hipDeviceAttributeStreamPrioritiesSupported: a = CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED; break;
    case hipDeviceAttributeTotalConstantMemory: a = CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY; break;
    case hipDeviceAttributeUnifiedAddressing: a = CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING; break;
    case hipDeviceAttributeWarpSize: a = CU_DEVICE_ATTRIBUTE_WARP_SIZE; break;
    case hipDeviceAttributeMemoryPoolsSupported: a = CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED; break;
    case hipDeviceAttributeCanUseStreamWaitValue:
        /* CUDA's CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR reads 0 on the test machine although
           cuStreamWaitValue32 works there (H200 and H100, driver 580); the calls below are what HIP promises. */
        TRY(init());
        *pi = 1;
        return hipSuccess;
    default:
        return hipErrorInvalidValue; /* AMD-only attributes (hipDeviceAttributeGcnArch...) */
    }
    TRY(init());
    CUdevice d;
    TRY(cuDeviceGet(&d, deviceId));
    TRY(cuDeviceGetAttribute(pi, a, d));
    return hipSuccess;
}

hipError_t hipMemGetInfo(size_t* free, size_t* total) {
    TRY(bind_device());
    TRY(cuMemGetInfo(free, total));
    return hipSuccess;
}

/* hipLimit_t: 0 is HIP 6's hipLimitStackSize. */
static int limit_of(int limit, CUlimit* out) {
    switch (limit) {
    case 0: *out = CU_LIMIT_STACK_SIZE; return 1;
    case hipLimitPrintfFifoSize: *out = CU_LIMIT_PRINTF_FIFO_SIZE; return 1;
    case hipLimitMallocHeapSize: *out = CU_LIMIT_MALLOC_HEAP_SIZE; return 1;
    default: return 0;
    }
}

hipError_t hipDeviceGetLimit(size_t* pValue, enum hipLimit_t limit) {
    CUlimit l;
    if (pValue == NULL) return hipErrorInvalidValue;
    if (!limit_of(limit, &l)) return hipErrorUnsupportedLimit;
    TRY(bind_device());
    TRY(cuCtxGetLimit(pValue, l));
    return hipSuccess;
}

hipError_t hipDeviceSetLimit(enum hipLimit_t limit, size_t value) {
    CUlimit l;
    if (!limit_of(limit, &l)) return hipErrorUnsupportedLimit;
    TRY(bind_device());
    TRY(cuCtxSetLimit(l, value));
    return hipSuccess;
}

hipError_t hipDeviceCanAccessPeer(int* canAccessPeer, int deviceId, int peerDeviceId) {
    if (canAccessPeer == NULL) return hipErrorInvalidValue;
    TRY(init());
    CUdevice d, p;
    TRY(cuDeviceGet(&d, deviceId));
    TRY(cuDeviceGet(&p, peerDeviceId));
    if (deviceId == peerDeviceId) {
        *canAccessPeer = 0; /* as HIP answers for a device and itself */
        return hipSuccess;
    }
    TRY(cuDeviceCanAccessPeer(canAccessPeer, d, p));
    return hipSuccess;
}

hipError_t hipDeviceEnablePeerAccess(int peerDeviceId, unsigned int flags) {
    CUcontext peer;
    TRY(bind_device());
    TRY(ctx_of(peerDeviceId, &peer));
    TRY(cuCtxEnablePeerAccess(peer, flags));
    return hipSuccess;
}

hipError_t hipDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
    TRY(bind_device());
    TRY(cuCtxGetStreamPriorityRange(leastPriority, greatestPriority));
    return hipSuccess;
}

/* Destroys the current device's primary context, and with it a sticky fault; retained anew on next use. */
hipError_t hipDeviceReset(void) {
    TRY(init());
    int device = t_device;
    CUdevice d;
    TRY(cuDeviceGet(&d, device));
    pthread_mutex_lock(&g_lock);
    CUcontext old = g_ctx[device];
    g_ctx[device] = NULL;
    pthread_mutex_unlock(&g_lock);
    CUcontext cur = NULL;
    cuCtxGetCurrent(&cur);
    if (old != NULL && cur == old) cuCtxSetCurrent(NULL);
    if (old != NULL) cuDevicePrimaryCtxRelease(d);
    TRY(cuDevicePrimaryCtxReset(d));
    return hipSuccess;
}

/* ------------------------------------------------------------------------------------- streams */

hipError_t hipStreamCreateWithPriority(hipStream_t* stream, unsigned int flags, int priority) {
    if (stream == NULL) return hipErrorInvalidValue;
    TRY(bind_device());
    CUstream s;
    TRY(cuStreamCreateWithPriority(&s, (flags & hipStreamNonBlocking) ? CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT, priority));
    *stream = (hipStream_t) s;
    return hipSuccess;
}

hipError_t hipStreamDestroy(hipStream_t stream) {
    TRY(bind_stream(stream));
    TRY(cuStreamDestroy((CUstream) stream));
    return hipSuccess;
}

hipError_t hipStreamSynchronize(hipStream_t stream) {
    TRY(bind_stream(stream));
    TRY(cuStreamSynchronize((CUstream) stream));
    return hipSuccess;
}

/* A host function in stream order; captured as a host node while the stream is capturing, as on ROCm. */
hipError_t hipLaunchHostFunc(hipStream_t stream, hipHostFn_t fn, void* userData) {
    TRY(bind_stream(stream));
    TRY(cuLaunchHostFunc((CUstream) stream, (CUhostFn) fn, userData));
    return hipSuccess;
}

hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags) {
    (void) flags;
    TRY(bind_stream(stream));
    TRY(cuStreamWaitEvent((CUstream) stream, (CUevent) event, 0));
    return hipSuccess;
}

/* hipStreamWaitValueGte/Eq/And/Nor are CU_STREAM_WAIT_VALUE_GEQ/EQ/AND/NOR; CUDA has no mask. */
hipError_t hipStreamWaitValue32(hipStream_t stream, void* ptr, uint32_t value, unsigned int flags, uint32_t mask) {
    if (mask != 0xFFFFFFFFu || flags > hipStreamWaitValueNor) return hipErrorInvalidValue;
    TRY(bind_stream(stream));
    TRY(cuStreamWaitValue32((CUstream) stream, DPTR(ptr), value, flags));
    return hipSuccess;
}

/* HIP reserves the flags; CUDA's 0 keeps the system-scope fence before the write, which the backend's completion
   counters rely on (on AMD the write follows the completion of earlier commands, whose writes are then visible). */
hipError_t hipStreamWriteValue32(hipStream_t stream, void* ptr, uint32_t value, unsigned int flags) {
    (void) flags;
    TRY(bind_stream(stream));
    TRY(cuStreamWriteValue32((CUstream) stream, DPTR(ptr), value, 0));
    return hipSuccess;
}

/* ------------------------------------------------------------------------------------- events */

hipError_t hipEventCreateWithFlags(hipEvent_t* event, unsigned flags) {
    if (event == NULL) return hipErrorInvalidValue;
    TRY(bind_device());
    CUevent e;
    /* hipEventBlockingSync 1, hipEventDisableTiming 2, hipEventInterprocess 4: CUDA's numbers */
    TRY(cuEventCreate(&e, flags & (hipEventBlockingSync | hipEventDisableTiming | hipEventInterprocess)));
    *event = (hipEvent_t) e;
    return hipSuccess;
}

hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream) {
    TRY(bind_stream(stream));
    TRY(cuEventRecord((CUevent) event, (CUstream) stream));
    return hipSuccess;
}

hipError_t hipEventQuery(hipEvent_t event) {
    TRY(bind_device());
    return map(cuEventQuery((CUevent) event));
}

hipError_t hipEventSynchronize(hipEvent_t event) {
    TRY(bind_device());
    TRY(cuEventSynchronize((CUevent) event));
    return hipSuccess;
}

hipError_t hipEventElapsedTime(float* ms, hipEvent_t start, hipEvent_t stop) {
    TRY(bind_device());
    TRY(cuEventElapsedTime(ms, (CUevent) start, (CUevent) stop));
    return hipSuccess;
}

hipError_t hipEventDestroy(hipEvent_t event) {
    TRY(bind_device());
    TRY(cuEventDestroy((CUevent) event));
    return hipSuccess;
}

/* ------------------------------------------------------------------------------------- memory */

hipError_t hipMalloc(void** ptr, size_t size) {
    if (ptr == NULL) return hipErrorInvalidValue;
    *ptr = NULL;
    if (size == 0) return hipSuccess;
    TRY(bind_device());
    CUdeviceptr p;
    TRY(cuMemAlloc(&p, size));
    *ptr = (void*) (uintptr_t) p;
    return hipSuccess;
}

hipError_t hipFree(void* ptr) {
    TRY(bind_device());
    if (ptr == NULL) return hipSuccess;
    TRY(cuMemFree(DPTR(ptr)));
    return hipSuccess;
}

hipError_t hipMallocAsync(void** dev_ptr, size_t size, hipStream_t stream) {
    if (dev_ptr == NULL) return hipErrorInvalidValue;
    TRY(bind_stream(stream));
    CUdeviceptr p;
    TRY(cuMemAllocAsync(&p, size, (CUstream) stream));
    *dev_ptr = (void*) (uintptr_t) p;
    return hipSuccess;
}

hipError_t hipFreeAsync(void* dev_ptr, hipStream_t stream) {
    TRY(bind_stream(stream));
    TRY(cuMemFreeAsync(DPTR(dev_ptr), (CUstream) stream));
    return hipSuccess;
}

hipError_t hipHostMalloc(void** ptr, size_t size, unsigned int flags) {
    if (ptr == NULL) return hipErrorInvalidValue;
    TRY(bind_device());
    /* hipHostMallocPortable 1, Mapped 2, WriteCombined 4 are CUDA's; coherence flags have no CUDA meaning */
    unsigned int cu = flags & (hipHostMallocPortable | hipHostMallocMapped | hipHostMallocWriteCombined);
    TRY(cuMemHostAlloc(ptr, size, cu));
    return hipSuccess;
}

hipError_t hipHostFree(void* ptr) {
    TRY(bind_device());
    if (ptr == NULL) return hipSuccess;
    TRY(cuMemFreeHost(ptr));
    return hipSuccess;
}

hipError_t hipHostRegister(void* hostPtr, size_t sizeBytes, unsigned int flags) {
    TRY(bind_device());
    unsigned int cu = flags & (hipHostRegisterPortable | hipHostRegisterMapped | hipHostRegisterIoMemory);
    TRY(cuMemHostRegister(hostPtr, sizeBytes, cu));
    return hipSuccess;
}

hipError_t hipHostUnregister(void* hostPtr) {
    TRY(bind_device());
    TRY(cuMemHostUnregister(hostPtr));
    return hipSuccess;
}

hipError_t hipHostGetDevicePointer(void** devPtr, void* hstPtr, unsigned int flags) {
    (void) flags;
    if (devPtr == NULL) return hipErrorInvalidValue;
    TRY(bind_device());
    CUdeviceptr p;
    TRY(cuMemHostGetDevicePointer(&p, hstPtr, 0));
    *devPtr = (void*) (uintptr_t) p;
    return hipSuccess;
}

/* ------------------------------------------------------------------------------ copies, memsets */

hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void* src, size_t sizeBytes, hipStream_t stream) {
    TRY(bind_stream(stream));
    TRY(cuMemcpyHtoDAsync(DPTR(dst), src, sizeBytes, (CUstream) stream));
    return hipSuccess;
}

hipError_t hipMemcpyDtoHAsync(void* dst, hipDeviceptr_t src, size_t sizeBytes, hipStream_t stream) {
    TRY(bind_stream(stream));
    TRY(cuMemcpyDtoHAsync(dst, DPTR(src), sizeBytes, (CUstream) stream));
    return hipSuccess;
}

hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes, hipStream_t stream) {
    TRY(bind_stream(stream));
    TRY(cuMemcpyDtoDAsync(DPTR(dst), DPTR(src), sizeBytes, (CUstream) stream));
    return hipSuccess;
}

hipError_t hipMemcpyPeerAsync(void* dst, int dstDeviceId, const void* src, int srcDevice, size_t sizeBytes,
                              hipStream_t stream) {
    CUcontext dc, sc;
    TRY(ctx_of(dstDeviceId, &dc));
    TRY(ctx_of(srcDevice, &sc));
    TRY(bind_stream(stream));
    TRY(cuMemcpyPeerAsync(DPTR(dst), dc, DPTR(src), sc, sizeBytes, (CUstream) stream));
    return hipSuccess;
}

hipError_t hipMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                            hipMemcpyKind kind, hipStream_t stream) {
    CUDA_MEMCPY2D p;
    memset(&p, 0, sizeof p);
    int fromHost = kind == hipMemcpyHostToDevice || kind == hipMemcpyHostToHost;
    int toHost = kind == hipMemcpyDeviceToHost || kind == hipMemcpyHostToHost;
    p.srcMemoryType = fromHost ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    if (fromHost) p.srcHost = src; else p.srcDevice = DPTR(src);
    p.srcPitch = spitch;
    p.dstMemoryType = toHost ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    if (toHost) p.dstHost = dst; else p.dstDevice = DPTR(dst);
    p.dstPitch = dpitch;
    p.WidthInBytes = width;
    p.Height = height;
    TRY(bind_stream(stream));
    TRY(cuMemcpy2DAsync(&p, (CUstream) stream));
    return hipSuccess;
}

hipError_t hipMemsetD8Async(hipDeviceptr_t dest, unsigned char value, size_t count, hipStream_t stream) {
    TRY(bind_stream(stream));
    TRY(cuMemsetD8Async(DPTR(dest), value, count, (CUstream) stream));
    return hipSuccess;
}

hipError_t hipMemsetD16Async(hipDeviceptr_t dest, unsigned short value, size_t count, hipStream_t stream) {
    TRY(bind_stream(stream));
    TRY(cuMemsetD16Async(DPTR(dest), value, count, (CUstream) stream));
    return hipSuccess;
}

hipError_t hipMemsetD32Async(hipDeviceptr_t dst, int value, size_t count, hipStream_t stream) {
    TRY(bind_stream(stream));
    TRY(cuMemsetD32Async(DPTR(dst), (unsigned int) value, count, (CUstream) stream));
    return hipSuccess;
}

/* ----------------------------------------------------------------------- modules and launches */

hipError_t hipModuleLoadData(hipModule_t* module, const void* image) {
    if (module == NULL || image == NULL) return hipErrorInvalidValue;
    TRY(bind_device());
    CUmodule m;
    TRY(cuModuleLoadData(&m, image));
    *module = (hipModule_t) m;
    return hipSuccess;
}

hipError_t hipModuleGetFunction(hipFunction_t* function, hipModule_t module, const char* kname) {
    if (function == NULL || kname == NULL) return hipErrorInvalidValue;
    TRY(bind_device());
    CUfunction f;
    TRY(cuModuleGetFunction(&f, (CUmodule) module, kname));
    *function = (hipFunction_t) f;
    return hipSuccess;
}

hipError_t hipProfilerStart(void) {
    TRY(bind_device());
    TRY(cuProfilerStart());
    return hipSuccess;
}

hipError_t hipProfilerStop(void) {
    TRY(bind_device());
    TRY(cuProfilerStop());
    return hipSuccess;
}

hipError_t hipModuleGetGlobal(hipDeviceptr_t* dptr, size_t* bytes, hipModule_t module, const char* name) {
    if (dptr == NULL || bytes == NULL || name == NULL) return hipErrorInvalidValue;
    TRY(bind_device());
    CUdeviceptr p;
    size_t n;
    TRY(cuModuleGetGlobal(&p, &n, (CUmodule) module, name));
    *dptr = (hipDeviceptr_t) p;
    *bytes = n;
    return hipSuccess;
}

hipError_t hipModuleUnload(hipModule_t module) {
    TRY(bind_device());
    TRY(cuModuleUnload((CUmodule) module));
    return hipSuccess;
}

/* HIP_FUNC_ATTRIBUTE_* are numbered like CU_FUNC_ATTRIBUTE_* */
hipError_t hipFuncGetAttribute(int* value, hipFunction_attribute attrib, hipFunction_t hfunc) {
    if (value == NULL || attrib < 0 || attrib >= HIP_FUNC_ATTRIBUTE_MAX) return hipErrorInvalidValue;
    TRY(bind_device());
    TRY(cuFuncGetAttribute(value, (CUfunction_attribute) attrib, (CUfunction) hfunc));
    return hipSuccess;
}

/* AMD has no opt-in for large dynamic shared memory; CUDA needs one above 48 KiB, so it is made here. */
static CUresult allow_shared(CUfunction f, unsigned int sharedMemBytes) {
    if (sharedMemBytes <= 48u * 1024u) return CUDA_SUCCESS;
    return cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int) sharedMemBytes);
}

hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gridDimX, unsigned int gridDimY,
                                 unsigned int gridDimZ, unsigned int blockDimX,
                                 unsigned int blockDimY, unsigned int blockDimZ,
                                 unsigned int sharedMemBytes, hipStream_t stream,
                                 void** kernelParams, void** extra) {
    TRY(bind_stream(stream));
    TRY(allow_shared((CUfunction) f, sharedMemBytes));
    TRY(cuLaunchKernel((CUfunction) f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes,
                       (CUstream) stream, kernelParams, extra));
    return hipSuccess;
}

hipError_t hipModuleLaunchCooperativeKernel(hipFunction_t f, unsigned int gridDimX,
                                            unsigned int gridDimY, unsigned int gridDimZ,
                                            unsigned int blockDimX, unsigned int blockDimY,
                                            unsigned int blockDimZ, unsigned int sharedMemBytes,
                                            hipStream_t stream, void** kernelParams) {
    TRY(bind_stream(stream));
    TRY(allow_shared((CUfunction) f, sharedMemBytes));
    TRY(cuLaunchCooperativeKernel((CUfunction) f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                                  sharedMemBytes, (CUstream) stream, kernelParams));
    return hipSuccess;
}

/* ------------------------------------------------------------------------------------- graphs */

hipError_t hipStreamBeginCapture(hipStream_t stream, hipStreamCaptureMode mode) {
    CUstreamCaptureMode m = mode == hipStreamCaptureModeGlobal ? CU_STREAM_CAPTURE_MODE_GLOBAL
                          : mode == hipStreamCaptureModeThreadLocal ? CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
                          : CU_STREAM_CAPTURE_MODE_RELAXED;
    TRY(bind_stream(stream));
    TRY(cuStreamBeginCapture((CUstream) stream, m));
    return hipSuccess;
}

hipError_t hipStreamEndCapture(hipStream_t stream, hipGraph_t* pGraph) {
    if (pGraph == NULL) return hipErrorInvalidValue;
    TRY(bind_stream(stream));
    CUgraph g;
    TRY(cuStreamEndCapture((CUstream) stream, &g));
    *pGraph = (hipGraph_t) g;
    return hipSuccess;
}

hipError_t hipGraphInstantiate(hipGraphExec_t* pGraphExec, hipGraph_t graph, hipGraphNode_t* pErrorNode,
                               char* pLogBuffer, size_t bufferSize) {
    if (pGraphExec == NULL) return hipErrorInvalidValue;
    if (pErrorNode != NULL) *pErrorNode = NULL;
    if (pLogBuffer != NULL && bufferSize > 0) pLogBuffer[0] = 0;
    TRY(bind_device());
    CUgraphExec e;
    TRY(cuGraphInstantiate(&e, (CUgraph) graph, 0));
    *pGraphExec = (hipGraphExec_t) e;
    return hipSuccess;
}

hipError_t hipGraphLaunch(hipGraphExec_t graphExec, hipStream_t stream) {
    TRY(bind_stream(stream));
    TRY(cuGraphLaunch((CUgraphExec) graphExec, (CUstream) stream));
    return hipSuccess;
}

hipError_t hipGraphExecDestroy(hipGraphExec_t graphExec) {
    TRY(bind_device());
    TRY(cuGraphExecDestroy((CUgraphExec) graphExec));
    return hipSuccess;
}

hipError_t hipGraphDestroy(hipGraph_t graph) {
    TRY(bind_device());
    TRY(cuGraphDestroy((CUgraph) graph));
    return hipSuccess;
}

/* Graphs built node by node (repeated work). A node's work runs in the calling thread's HIP device's context, as HIP
   checks a kernel node's function against the current device. */

hipError_t hipGraphCreate(hipGraph_t* pGraph, unsigned int flags) {
    if (pGraph == NULL) return hipErrorInvalidValue;
    TRY(bind_device());
    CUgraph g;
    TRY(cuGraphCreate(&g, flags));
    *pGraph = (hipGraph_t) g;
    return hipSuccess;
}

/* hipKernelNodeParams.func is the hipFunction_t of hipModuleGetFunction (AMD's runtime accepts one there): a CUfunction. */
static CUresult kernel_node(CUDA_KERNEL_NODE_PARAMS* p, const hipKernelNodeParams* h) {
    memset(p, 0, sizeof *p);
    p->func = (CUfunction) h->func;
    p->gridDimX = h->gridDim.x;
    p->gridDimY = h->gridDim.y;
    p->gridDimZ = h->gridDim.z;
    p->blockDimX = h->blockDim.x;
    p->blockDimY = h->blockDim.y;
    p->blockDimZ = h->blockDim.z;
    p->sharedMemBytes = h->sharedMemBytes;
    p->kernelParams = h->kernelParams;
    p->extra = h->extra;
    return allow_shared(p->func, p->sharedMemBytes);
}

static void memset_node(CUDA_MEMSET_NODE_PARAMS* p, const hipMemsetParams* h) {
    memset(p, 0, sizeof *p);
    p->dst = DPTR(h->dst);
    p->pitch = h->pitch;
    p->value = h->value;
    p->elementSize = h->elementSize;
    p->width = h->width;
    p->height = h->height;
}

/* One row of count bytes; a side is host or device memory by the kind (hipMemcpyDefault: unified addressing). */
static void memcpy_node(CUDA_MEMCPY3D* p, void* dst, const void* src, size_t count, hipMemcpyKind kind) {
    memset(p, 0, sizeof *p);
    int fromHost = kind == hipMemcpyHostToDevice || kind == hipMemcpyHostToHost;
    int toHost = kind == hipMemcpyDeviceToHost || kind == hipMemcpyHostToHost;
    p->srcMemoryType = kind == hipMemcpyDefault ? CU_MEMORYTYPE_UNIFIED : fromHost ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    if (fromHost) p->srcHost = src; else p->srcDevice = DPTR(src);
    p->dstMemoryType = kind == hipMemcpyDefault ? CU_MEMORYTYPE_UNIFIED : toHost ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    if (toHost) p->dstHost = dst; else p->dstDevice = DPTR(dst);
    p->WidthInBytes = count;
    p->Height = 1;
    p->Depth = 1;
}

hipError_t hipGraphAddKernelNode(hipGraphNode_t* pGraphNode, hipGraph_t graph,
                                 const hipGraphNode_t* pDependencies, size_t numDependencies,
                                 const hipKernelNodeParams* pNodeParams) {
    if (pGraphNode == NULL || pNodeParams == NULL || pNodeParams->func == NULL) return hipErrorInvalidValue;
    TRY(bind_device());
    CUDA_KERNEL_NODE_PARAMS p;
    TRY(kernel_node(&p, pNodeParams));
    CUgraphNode n;
    TRY(cuGraphAddKernelNode(&n, (CUgraph) graph, (const CUgraphNode*) pDependencies, numDependencies, &p));
    *pGraphNode = (hipGraphNode_t) n;
    return hipSuccess;
}

hipError_t hipGraphAddMemsetNode(hipGraphNode_t* pGraphNode, hipGraph_t graph,
                                 const hipGraphNode_t* pDependencies, size_t numDependencies,
                                 const hipMemsetParams* pMemsetParams) {
    if (pGraphNode == NULL || pMemsetParams == NULL) return hipErrorInvalidValue;
    TRY(bind_device());
    CUcontext c;
    TRY(cuCtxGetCurrent(&c));
    CUDA_MEMSET_NODE_PARAMS p;
    memset_node(&p, pMemsetParams);
    CUgraphNode n;
    TRY(cuGraphAddMemsetNode(&n, (CUgraph) graph, (const CUgraphNode*) pDependencies, numDependencies, &p, c));
    *pGraphNode = (hipGraphNode_t) n;
    return hipSuccess;
}

hipError_t hipGraphAddMemcpyNode1D(hipGraphNode_t* pGraphNode, hipGraph_t graph,
                                   const hipGraphNode_t* pDependencies, size_t numDependencies,
                                   void* dst, const void* src, size_t count, hipMemcpyKind kind) {
    if (pGraphNode == NULL) return hipErrorInvalidValue;
    TRY(bind_device());
    CUcontext c;
    TRY(cuCtxGetCurrent(&c));
    CUDA_MEMCPY3D p;
    memcpy_node(&p, dst, src, count, kind);
    CUgraphNode n;
    TRY(cuGraphAddMemcpyNode(&n, (CUgraph) graph, (const CUgraphNode*) pDependencies, numDependencies, &p, c));
    *pGraphNode = (hipGraphNode_t) n;
    return hipSuccess;
}

hipError_t hipGraphExecKernelNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                           const hipKernelNodeParams* pNodeParams) {
    if (pNodeParams == NULL || pNodeParams->func == NULL) return hipErrorInvalidValue;
    TRY(bind_device());
    CUDA_KERNEL_NODE_PARAMS p;
    TRY(kernel_node(&p, pNodeParams));
    TRY(cuGraphExecKernelNodeSetParams((CUgraphExec) hGraphExec, (CUgraphNode) node, &p));
    return hipSuccess;
}

hipError_t hipGraphExecMemsetNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                           const hipMemsetParams* pNodeParams) {
    if (pNodeParams == NULL) return hipErrorInvalidValue;
    TRY(bind_device());
    CUcontext c;
    TRY(cuCtxGetCurrent(&c));
    CUDA_MEMSET_NODE_PARAMS p;
    memset_node(&p, pNodeParams);
    TRY(cuGraphExecMemsetNodeSetParams((CUgraphExec) hGraphExec, (CUgraphNode) node, &p, c));
    return hipSuccess;
}

hipError_t hipGraphExecMemcpyNodeSetParams1D(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                             void* dst, const void* src, size_t count,
                                             hipMemcpyKind kind) {
    TRY(bind_device());
    CUcontext c;
    TRY(cuCtxGetCurrent(&c));
    CUDA_MEMCPY3D p;
    memcpy_node(&p, dst, src, count, kind);
    TRY(cuGraphExecMemcpyNodeSetParams((CUgraphExec) hGraphExec, (CUgraphNode) node, &p, c));
    return hipSuccess;
}

/* ------------------------------------------------------------------------ hiprtc over NVRTC */

typedef int nvrtcResult; /* NVRTC_SUCCESS 0; the other codes are hiprtc's */
typedef struct _nvrtcProgram* nvrtcProgram;

static struct {
    void* lib;
    const char* path;
    nvrtcResult (*version)(int*, int*);
    nvrtcResult (*create)(nvrtcProgram*, const char*, const char*, int, const char* const*, const char* const*);
    nvrtcResult (*compile)(nvrtcProgram, int, const char* const*);
    nvrtcResult (*logSize)(nvrtcProgram, size_t*);
    nvrtcResult (*log)(nvrtcProgram, char*);
    nvrtcResult (*cubinSize)(nvrtcProgram, size_t*);
    nvrtcResult (*cubin)(nvrtcProgram, char*);
    nvrtcResult (*ptxSize)(nvrtcProgram, size_t*);
    nvrtcResult (*ptx)(nvrtcProgram, char*);
    nvrtcResult (*destroy)(nvrtcProgram*);
    const char* (*errorString)(nvrtcResult);
} nv;

static int nv_ok;

static void nvrtc_load_once(void) {
    const char* env = getenv("SLUICE_NVRTC");
    const char* names[] = {env, "libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "/usr/local/cuda/lib64/libnvrtc.so",
                           "/usr/local/cuda/lib64/libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so.12"};
    for (size_t i = 0; i < sizeof names / sizeof names[0] && nv.lib == NULL; i++) {
        if (names[i] != NULL && names[i][0] != 0) {
            nv.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
            nv.path = names[i];
        }
    }
    if (nv.lib == NULL) return;
#define SYM(field, name) *(void**) (&nv.field) = dlsym(nv.lib, name); if (nv.field == NULL) return
    SYM(version, "nvrtcVersion");
    SYM(create, "nvrtcCreateProgram");
    SYM(compile, "nvrtcCompileProgram");
    SYM(logSize, "nvrtcGetProgramLogSize");
    SYM(log, "nvrtcGetProgramLog");
    SYM(cubinSize, "nvrtcGetCUBINSize");
    SYM(cubin, "nvrtcGetCUBIN");
    SYM(ptxSize, "nvrtcGetPTXSize");
    SYM(ptx, "nvrtcGetPTX");
    SYM(destroy, "nvrtcDestroyProgram");
    SYM(errorString, "nvrtcGetErrorString");
#undef SYM
    nv_ok = 1;
}

/* NVRTC, loaded on first use; 0 if none was found. */
static int nvrtc_load(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, nvrtc_load_once);
    return nv_ok;
}

/* The program handle HIP's header declares opaque: NVRTC's program and whether a cubin was asked for. */
struct _hiprtcProgram {
    nvrtcProgram prog;
    int cubin;
};

const char* hiprtcGetErrorString(hiprtcResult result) {
    if (nvrtc_load()) return nv.errorString((nvrtcResult) result);
    switch (result) {
    case HIPRTC_SUCCESS: return "HIPRTC_SUCCESS";
    case HIPRTC_ERROR_COMPILATION: return "HIPRTC_ERROR_COMPILATION";
    case HIPRTC_ERROR_INTERNAL_ERROR: return "HIPRTC_ERROR_INTERNAL_ERROR (NVRTC not found)";
    default: return "HIPRTC_ERROR";
    }
}

hiprtcResult hiprtcVersion(int* major, int* minor) {
    if (!nvrtc_load()) return HIPRTC_ERROR_INTERNAL_ERROR;
    return (hiprtcResult) nv.version(major, minor);
}

hiprtcResult hiprtcCreateProgram(hiprtcProgram* prog, const char* src, const char* name, int numHeaders,
                                 const char** headers, const char** includeNames) {
    if (prog == NULL) return HIPRTC_ERROR_INVALID_INPUT;
    if (!nvrtc_load()) return HIPRTC_ERROR_INTERNAL_ERROR;
    struct _hiprtcProgram* p = calloc(1, sizeof *p);
    if (p == NULL) return HIPRTC_ERROR_OUT_OF_MEMORY;
    nvrtcResult r = nv.create(&p->prog, src, name, numHeaders, headers, includeNames);
    if (r != 0) {
        free(p);
        return (hiprtcResult) r;
    }
    *prog = p;
    return HIPRTC_SUCCESS;
}

/*
 * hiprtc compiles for the current device when no architecture is named; so does this, for the device's
 * sm_XY (a cubin). AMD architecture options (--offload-arch=gfx..., --gpu-architecture=gfx...) are dropped.
 */
hiprtcResult hiprtcCompileProgram(hiprtcProgram prog, int numOptions, const char** options) {
    if (prog == NULL || numOptions < 0) return HIPRTC_ERROR_INVALID_INPUT;
    const char** opts = calloc((size_t) numOptions + 2, sizeof *opts);
    if (opts == NULL) return HIPRTC_ERROR_OUT_OF_MEMORY;
    int n = 0, named = 0;
    for (int i = 0; i < numOptions; i++) {
        const char* o = options[i];
        if (strncmp(o, "--offload-arch=", 15) == 0 || strstr(o, "=gfx") != NULL) continue;
        if (strncmp(o, "-arch", 5) == 0 || strncmp(o, "--gpu-architecture", 18) == 0) named = 1;
        opts[n++] = o;
    }
    char arch[32];
    prog->cubin = 1;
    if (!named) {
        CUdevice d;
        int major = 0, minor = 0;
        if (init() != CUDA_SUCCESS || cuDeviceGet(&d, t_device) != CUDA_SUCCESS
            || cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d) != CUDA_SUCCESS
            || cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d) != CUDA_SUCCESS) {
            free(opts);
            return HIPRTC_ERROR_INTERNAL_ERROR;
        }
        snprintf(arch, sizeof arch, "-arch=sm_%d%d", major, minor);
        opts[n++] = arch;
    } else {
        prog->cubin = 0; /* a caller's architecture may be virtual: hand back PTX */
    }
    nvrtcResult r = nv.compile(prog->prog, n, opts);
    free(opts);
    return (hiprtcResult) r;
}

hiprtcResult hiprtcGetProgramLogSize(hiprtcProgram prog, size_t* logSizeRet) {
    if (prog == NULL) return HIPRTC_ERROR_INVALID_PROGRAM;
    return (hiprtcResult) nv.logSize(prog->prog, logSizeRet);
}

hiprtcResult hiprtcGetProgramLog(hiprtcProgram prog, char* log) {
    if (prog == NULL) return HIPRTC_ERROR_INVALID_PROGRAM;
    return (hiprtcResult) nv.log(prog->prog, log);
}

hiprtcResult hiprtcGetCodeSize(hiprtcProgram prog, size_t* codeSizeRet) {
    if (prog == NULL) return HIPRTC_ERROR_INVALID_PROGRAM;
    return (hiprtcResult) (prog->cubin ? nv.cubinSize(prog->prog, codeSizeRet) : nv.ptxSize(prog->prog, codeSizeRet));
}

hiprtcResult hiprtcGetCode(hiprtcProgram prog, char* code) {
    if (prog == NULL) return HIPRTC_ERROR_INVALID_PROGRAM;
    return (hiprtcResult) (prog->cubin ? nv.cubin(prog->prog, code) : nv.ptx(prog->prog, code));
}

hiprtcResult hiprtcDestroyProgram(hiprtcProgram* prog) {
    if (prog == NULL || *prog == NULL) return HIPRTC_ERROR_INVALID_PROGRAM;
    nvrtcResult r = nv.destroy(&(*prog)->prog);
    free(*prog);
    *prog = NULL;
    return (hiprtcResult) r;
}
