package dev.sluice.cuda;

import dev.sluice.spi.support.NativeEvents;

/**
 * Handles layer: the CUDA driver's events for one context, as the backend kit uses them (the marker pool, user
 * events). Binds the context before calls that want it current; {@code cuEventQuery}, {@code cuEventRecord} and
 * {@code cuStreamWaitEvent} go through {@link Cu}'s {@code java.lang.foreign} handles.
 */
final class DriverEvents implements NativeEvents {

    private final DriverContext cu;
    private final int markerFlags;

    /**
     * @param cu          the context the events belong to
     * @param markerFlags {@code CU_EVENT_*} flags of the pool's events; {@code CU_EVENT_DISABLE_TIMING} (2) is added
     */
    DriverEvents(DriverContext cu, int markerFlags) {
        this.cu = cu;
        this.markerFlags = markerFlags | 2;
    }

    @Override
    public long create() {
        cu.bind();
        return Cu.eventCreate(markerFlags);
    }

    /** Called by the pool at close, with the context bound. */
    @Override
    public void destroy(long event) {
        Cu.check(Cu.eventDestroy(event), "cuEventDestroy");
    }

    @Override
    public boolean query(long event) {
        cu.bind();
        int r = Cu.eventQuery(event);
        if (r == Cu.SUCCESS) {
            return true;
        }
        if (r == Cu.ERROR_NOT_READY) {
            return false;
        }
        throw Cu.error(r, "cuEventQuery");
    }

    @Override
    public void synchronize(long event) {
        cu.bind();
        Cu.check(Cu.eventSynchronize(event), "cuEventSynchronize");
    }

    @Override
    public float elapsedMillis(long start, long end) {
        cu.bind();
        return Cu.eventElapsedTime(start, end);
    }

    @Override
    public void record(long event, long stream) {
        cu.bind();
        Cu.check(Cu.eventRecord(event, stream), "cuEventRecord");
    }

    @Override
    public void waitOnDevice(long stream, long event) {
        cu.bind();
        Cu.check(Cu.streamWaitEvent(stream, event), "cuStreamWaitEvent");
    }
}
