package dev.sluice;

/**
 * Device attributes readable with {@link DeviceContext#attribute(DeviceAttribute)}, named after CUDA's
 * {@code CU_DEVICE_ATTRIBUTE_*} (HIP has the same set under {@code hipDeviceAttribute*}). A backend that
 * cannot report one throws {@link UnsupportedOnBackendException}.
 */
public enum DeviceAttribute {
    /** Most threads one block may have (the product of its three dims); 1024 on current NVIDIA and AMD GPUs. */
    MAX_THREADS_PER_BLOCK,
    /** Largest x dim of a block, in threads. */
    MAX_BLOCK_DIM_X,
    /** Largest y dim of a block, in threads. */
    MAX_BLOCK_DIM_Y,
    /** Largest z dim of a block, in threads (64 on current GPUs). */
    MAX_BLOCK_DIM_Z,
    /** Largest x dim of a grid, in blocks (2^31 - 1 on current GPUs). */
    MAX_GRID_DIM_X,
    /** Largest y dim of a grid, in blocks (65535 on NVIDIA GPUs). */
    MAX_GRID_DIM_Y,
    /** Largest z dim of a grid, in blocks (65535 on NVIDIA GPUs). */
    MAX_GRID_DIM_Z,
    /** Static plus dynamic shared memory a block may use without opting in, in bytes. */
    MAX_SHARED_MEMORY_PER_BLOCK,
    /** Shared memory a block may use after opting in (CUDA's {@code ..._OPTIN}), in bytes. */
    MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
    /** Constant memory on the device, in bytes (64 KiB on NVIDIA GPUs). */
    TOTAL_CONSTANT_MEMORY,
    /** Threads that execute in lockstep: 32 on NVIDIA GPUs, 64 or 32 on AMD GPUs (a wavefront). */
    WARP_SIZE,
    /** 32-bit registers available to one block, shared by its threads. */
    MAX_REGISTERS_PER_BLOCK,
    /** Peak clock of the multiprocessors, in kHz. */
    CLOCK_RATE_KHZ,
    /** Peak clock of device memory, in kHz. */
    MEMORY_CLOCK_RATE_KHZ,
    /** Width of the device memory bus, in bits. */
    GLOBAL_MEMORY_BUS_WIDTH,
    /** Size of the L2 cache, in bytes; 0 where the device has none. */
    L2_CACHE_SIZE,
    /**
     * Streaming multiprocessors (NVIDIA) or compute units (AMD); the CPU simulator reports its available processors.
     */
    MULTIPROCESSOR_COUNT,
    /** Most threads resident on one multiprocessor at once, across all its blocks. */
    MAX_THREADS_PER_MULTIPROCESSOR,
    /** Major compute capability version (see {@link DeviceContext#computeCapability()}); 0 on the CPU simulator. */
    COMPUTE_CAPABILITY_MAJOR,
    /** Minor compute capability version (see {@link DeviceContext#computeCapability()}); 0 on the CPU simulator. */
    COMPUTE_CAPABILITY_MINOR,
    /** Number of copy engines: 2 or more means uploads and downloads overlap. */
    ASYNC_ENGINE_COUNT,
    /** 1 when kernels of different streams may run at the same time, 0 when the device runs one kernel at a time. */
    CONCURRENT_KERNELS,
    /** 1 when the device shares its memory with the host (an integrated GPU, or the CPU simulator), else 0. */
    INTEGRATED,
    /** 1 when page-locked host memory can be mapped into the device's address space, else 0. */
    CAN_MAP_HOST_MEMORY,
    /** 1 when host and device share one virtual address space, else 0. */
    UNIFIED_ADDRESSING,
    /** 1 when the device can allocate managed (unified) memory, else 0. */
    MANAGED_MEMORY,
    /** 1 when the device supports stream-ordered allocation from memory pools, else 0. */
    MEMORY_POOLS_SUPPORTED,
    /** Whether thread-block clusters can be launched (compute capability 9.0 and later). */
    CLUSTER_LAUNCH,
    /** 1 when the device can launch cooperative kernels (grid-wide synchronization), else 0. */
    COOPERATIVE_LAUNCH,
    /**
     * PCI bus number of the device; with {@link #PCI_DEVICE_ID} and {@link #PCI_DOMAIN_ID} it names the card as {@code
     * nvidia-smi} or {@code rocm-smi} show it.
     */
    PCI_BUS_ID,
    /** PCI device (slot) number of the device. */
    PCI_DEVICE_ID,
    /** PCI domain number of the device. */
    PCI_DOMAIN_ID,
    /** 1 when error-correcting codes protect device memory, else 0. */
    ECC_ENABLED,
    /**
     * Which processes may use the device: 0 any (default), 2 none (prohibited), 3 one process (exclusive process);
     * CUDA's {@code CUcomputemode} values.
     */
    COMPUTE_MODE
}
