package dev.sluice;

/** Flags of a {@link DeviceEvent}. */
public enum EventFlag {
    /**
     * Record timestamps so that {@link DeviceEvent#elapsed(DeviceEvent)} works. Off by default, as in the
     * driver APIs: events without timing cost less to record.
     */
    TIMING,
    /** {@link DeviceEvent#synchronize()} blocks the thread in the driver instead of spinning. */
    BLOCKING_SYNC,
    /** The event may be shared with another process (CUDA IPC). Requires timing off. */
    INTERPROCESS
}
