package dev.sluice;

/**
 * Device attributes readable with {@link DeviceContext#attribute(DeviceAttribute)}, named after CUDA's
 * {@code CU_DEVICE_ATTRIBUTE_*} (HIP has the same set under {@code hipDeviceAttribute*}). A backend that
 * cannot report one throws {@link UnsupportedOnBackendException}.
 */
public enum DeviceAttribute {
    MAX_THREADS_PER_BLOCK,
    MAX_BLOCK_DIM_X,
    MAX_BLOCK_DIM_Y,
    MAX_BLOCK_DIM_Z,
    MAX_GRID_DIM_X,
    MAX_GRID_DIM_Y,
    MAX_GRID_DIM_Z,
    /** Static plus dynamic shared memory a block may use without opting in, in bytes. */
    MAX_SHARED_MEMORY_PER_BLOCK,
    /** Shared memory a block may use after opting in (CUDA's {@code ..._OPTIN}), in bytes. */
    MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
    TOTAL_CONSTANT_MEMORY,
    WARP_SIZE,
    MAX_REGISTERS_PER_BLOCK,
    CLOCK_RATE_KHZ,
    MEMORY_CLOCK_RATE_KHZ,
    GLOBAL_MEMORY_BUS_WIDTH,
    L2_CACHE_SIZE,
    MULTIPROCESSOR_COUNT,
    MAX_THREADS_PER_MULTIPROCESSOR,
    COMPUTE_CAPABILITY_MAJOR,
    COMPUTE_CAPABILITY_MINOR,
    /** Number of copy engines: 2 or more means uploads and downloads overlap. */
    ASYNC_ENGINE_COUNT,
    CONCURRENT_KERNELS,
    INTEGRATED,
    CAN_MAP_HOST_MEMORY,
    UNIFIED_ADDRESSING,
    MANAGED_MEMORY,
    MEMORY_POOLS_SUPPORTED,
    /** Whether thread-block clusters can be launched (compute capability 9.0 and later). */
    CLUSTER_LAUNCH,
    COOPERATIVE_LAUNCH,
    PCI_BUS_ID,
    PCI_DEVICE_ID,
    PCI_DOMAIN_ID,
    ECC_ENABLED,
    COMPUTE_MODE
}
