package dev.sluice.hip;

/**
 * The numeric values of the HIP enums and flags the backend passes, each field named exactly as in HIP's
 * headers ({@code hip/hip_runtime_api.h}, {@code hip/driver_types.h}, {@code hip/hiprtc.h} of HIP 5.2,
 * kept in {@code src/test/native/include}). {@code HipHeadersTest} reads those headers and checks every
 * field here against them, so a value copied wrong fails the build. The values the backend relies on did
 * not change in HIP 6 (the attribute enum grew only at its ends).
 *
 * <p>HIP's device attribute numbers are not CUDA's ({@code hipDeviceAttributeMaxThreadsPerBlock} is 56,
 * {@code CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK} is 1): never share a table with the CUDA backend.
 */
@SuppressWarnings("checkstyle:ConstantName")
final class HipApiConstants {

    private HipApiConstants() {
    }

    // ---------------------------------------------------------------- hipError_t
    static final int hipSuccess = 0;
    static final int hipErrorInvalidValue = 1;
    static final int hipErrorOutOfMemory = 2;
    static final int hipErrorNotInitialized = 3;
    static final int hipErrorInvalidDeviceFunction = 98;
    static final int hipErrorPriorLaunchFailure = 53;
    static final int hipErrorNoDevice = 100;
    static final int hipErrorInvalidDevice = 101;
    static final int hipErrorInvalidImage = 200;
    static final int hipErrorNoBinaryForGpu = 209;
    static final int hipErrorECCNotCorrectable = 214;
    static final int hipErrorUnsupportedLimit = 215;
    static final int hipErrorInvalidKernelFile = 218;
    static final int hipErrorNotFound = 500;
    static final int hipErrorNotReady = 600;
    static final int hipErrorIllegalAddress = 700;
    static final int hipErrorLaunchTimeOut = 702;
    static final int hipErrorPeerAccessAlreadyEnabled = 704;
    static final int hipErrorContextIsDestroyed = 709;
    static final int hipErrorAssert = 710;
    static final int hipErrorHostMemoryAlreadyRegistered = 712;
    static final int hipErrorLaunchFailure = 719;
    static final int hipErrorNotSupported = 801;
    static final int hipErrorStreamCaptureUnsupported = 900;

    // ---------------------------------------------------------------- hiprtcResult
    static final int HIPRTC_SUCCESS = 0;
    static final int HIPRTC_ERROR_COMPILATION = 6;

    // ---------------------------------------------------------------- hipDeviceAttribute_t
    static final int hipDeviceAttributeEccEnabled = 0;
    static final int hipDeviceAttributeAsyncEngineCount = 2;
    static final int hipDeviceAttributeCanMapHostMemory = 3;
    static final int hipDeviceAttributeClockRate = 5;
    static final int hipDeviceAttributeComputeMode = 6;
    static final int hipDeviceAttributeConcurrentKernels = 8;
    static final int hipDeviceAttributeCooperativeLaunch = 10;
    static final int hipDeviceAttributeIntegrated = 16;
    static final int hipDeviceAttributeL2CacheSize = 19;
    static final int hipDeviceAttributeComputeCapabilityMajor = 23;
    static final int hipDeviceAttributeManagedMemory = 24;
    static final int hipDeviceAttributeMaxBlockDimX = 26;
    static final int hipDeviceAttributeMaxBlockDimY = 27;
    static final int hipDeviceAttributeMaxBlockDimZ = 28;
    static final int hipDeviceAttributeMaxGridDimX = 29;
    static final int hipDeviceAttributeMaxGridDimY = 30;
    static final int hipDeviceAttributeMaxGridDimZ = 31;
    static final int hipDeviceAttributeMaxThreadsPerBlock = 56;
    static final int hipDeviceAttributeMaxThreadsPerMultiProcessor = 57;
    static final int hipDeviceAttributeMemoryBusWidth = 59;
    static final int hipDeviceAttributeMemoryClockRate = 60;
    static final int hipDeviceAttributeComputeCapabilityMinor = 61;
    static final int hipDeviceAttributeMultiprocessorCount = 63;
    static final int hipDeviceAttributePciBusId = 67;
    static final int hipDeviceAttributePciDeviceId = 68;
    static final int hipDeviceAttributePciDomainID = 69;
    static final int hipDeviceAttributeMaxRegistersPerBlock = 71;
    static final int hipDeviceAttributeMaxSharedMemoryPerBlock = 74;
    static final int hipDeviceAttributeSharedMemPerBlockOptin = 75;
    static final int hipDeviceAttributeTotalConstantMemory = 83;
    static final int hipDeviceAttributeUnifiedAddressing = 85;
    static final int hipDeviceAttributeWarpSize = 87;
    static final int hipDeviceAttributeMemoryPoolsSupported = 88;
    /** AMD only: the gfx architecture as a number (906 for gfx906); gone in HIP 6, where it reads as an error. */
    static final int hipDeviceAttributeGcnArch = 10003;
    static final int hipDeviceAttributeCanUseStreamWaitValue = 10013;

    // ---------------------------------------------------------------- hipLimit_t (hipLimitStackSize = 0 from HIP 6 on)
    static final int hipLimitPrintfFifoSize = 1;
    static final int hipLimitMallocHeapSize = 2;

    // ---------------------------------------------------------------- hipFunction_attribute
    static final int HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0;
    static final int HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1;
    static final int HIP_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2;
    static final int HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3;
    static final int HIP_FUNC_ATTRIBUTE_NUM_REGS = 4;
    static final int HIP_FUNC_ATTRIBUTE_PTX_VERSION = 5;
    static final int HIP_FUNC_ATTRIBUTE_BINARY_VERSION = 6;
    static final int HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;

    // ---------------------------------------------------------------- flags (#defines)
    static final int hipStreamDefault = 0x0;
    static final int hipStreamNonBlocking = 0x1;
    static final int hipEventDefault = 0x0;
    static final int hipEventBlockingSync = 0x1;
    static final int hipEventDisableTiming = 0x2;
    static final int hipEventInterprocess = 0x4;
    static final int hipHostMallocDefault = 0x0;
    static final int hipHostMallocPortable = 0x1;
    static final int hipHostMallocMapped = 0x2;
    static final int hipHostRegisterPortable = 0x1;
    static final int hipHostRegisterMapped = 0x2;
    static final int hipStreamWaitValueGte = 0x0;

    // ---------------------------------------------------------------- hipMemcpyKind
    static final int hipMemcpyHostToDevice = 1;
    static final int hipMemcpyDeviceToHost = 2;
    static final int hipMemcpyDeviceToDevice = 3;

    // ---------------------------------------------------------------- hipStreamCaptureMode
    static final int hipStreamCaptureModeRelaxed = 2;
}
