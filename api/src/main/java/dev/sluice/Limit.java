package dev.sluice;

/** Context limits (CUDA's {@code CUlimit}), read with {@link DeviceContext#limit} and set with {@link DeviceContext#setLimit}. */
public enum Limit {
    /** Stack size of each GPU thread, in bytes. */
    STACK_SIZE,
    /** Size of the FIFO that device {@code printf} writes into, in bytes. */
    PRINTF_FIFO_SIZE,
    /** Size of the heap that device {@code malloc} uses, in bytes. */
    MALLOC_HEAP_SIZE,
    /** The depth of nested device-side synchronisation ({@code cudaLimitDevRuntimeSyncDepth}). */
    DEV_RUNTIME_SYNC_DEPTH,
    /** Device-side launches that may be pending ({@code cudaLimitDevRuntimePendingLaunchCount}). */
    DEV_RUNTIME_PENDING_LAUNCH_COUNT,
    /** L2 cache fetch granularity, in bytes. */
    MAX_L2_FETCH_GRANULARITY,
    /** L2 cache set aside for persisting accesses, in bytes. */
    PERSISTING_L2_CACHE_SIZE
}
