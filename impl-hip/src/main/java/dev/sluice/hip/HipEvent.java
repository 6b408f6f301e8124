package dev.sluice.hip;

import dev.sluice.spi.EventHandle;

/** A user's event ({@code DeviceEvent}), created with the flags asked for. */
final class HipEvent implements EventHandle {

    private final HipContext context;
    final long handle;

    HipEvent(HipContext context, long handle) {
        this.context = context;
        this.handle = handle;
    }

    @Override
    public boolean query() {
        int r = context.api.eventQuery(handle);
        if (r == HipConstants.hipSuccess) {
            return true;
        }
        if (r == HipConstants.hipErrorNotReady) {
            return false;
        }
        context.noteStatus(r);
        throw HipErrors.exception(context.api, "hipEventQuery", r, -1);
    }

    @Override
    public void synchronize() {
        context.api.eventSynchronize(handle);
    }

    @Override
    public float elapsedMillis(EventHandle end) {
        return context.api.eventElapsedTime(handle, ((HipEvent) end).handle);
    }

    @Override
    public long nativeHandle() {
        return handle;
    }

    @Override
    public void destroy() {
        context.api.eventDestroy(handle);
    }
}
