package dev.sluice.hip;

import dev.sluice.spi.support.NativeEvents;
import java.util.function.IntConsumer;

/**
 * Handles layer: the HIP runtime's events on one device, as the backend kit uses them (the marker pool, user
 * events). Creating binds the device; the other calls name the event or stream and need no binding.
 */
final class RuntimeEvents implements NativeEvents {

    private final HipApi api;
    private final int device;
    private final IntConsumer noteStatus;

    /**
     * @param api        the runtime
     * @param device     the device the events belong to
     * @param noteStatus told of every error status a query returns (a sticky one faults the device)
     */
    RuntimeEvents(HipApi api, int device, IntConsumer noteStatus) {
        this.api = api;
        this.device = device;
        this.noteStatus = noteStatus;
    }

    @Override
    public long create() {
        api.setDevice(device);
        return api.eventCreateWithFlags(HipApiConstants.hipEventDisableTiming);
    }

    @Override
    public void destroy(long event) {
        api.eventDestroy(event);
    }

    @Override
    public boolean query(long event) {
        int r = api.eventQuery(event);
        if (r == HipApiConstants.hipSuccess) {
            return true;
        }
        if (r == HipApiConstants.hipErrorNotReady) {
            return false;
        }
        noteStatus.accept(r);
        throw HipApiErrors.exception(api, "hipEventQuery", r, -1);
    }

    @Override
    public void synchronize(long event) {
        api.eventSynchronize(event);
    }

    @Override
    public float elapsedMillis(long start, long end) {
        return api.eventElapsedTime(start, end);
    }

    @Override
    public void record(long event, long stream) {
        api.eventRecord(event, stream);
    }

    @Override
    public void waitOnDevice(long stream, long event) {
        api.streamWaitEvent(stream, event);
    }
}
