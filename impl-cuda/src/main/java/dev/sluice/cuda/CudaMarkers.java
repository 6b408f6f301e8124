package dev.sluice.cuda;

import dev.sluice.spi.support.CompletionCounters;
import dev.sluice.spi.support.EventMarker;
import dev.sluice.spi.support.EventRing;
import dev.sluice.spi.support.StallWatch;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;
import org.jspecify.annotations.Nullable;

/**
 * The completion markers of one CUDA stream: pooled events recorded on the stream, the completion counter its marker
 * stream writes after each armed marker ({@link CompletionCounters}, {@link Arming}), and the fault checks of a marker
 * that stalls. An armed marker is done once the counter has reached its number, read from host memory without a driver
 * call; a marker not armed (yet), or every marker where the context has no counters, once its event is (one
 * {@code cuEventQuery}). Either way its event stays what other streams wait on. {@link #record()} runs under the engine's lock for the stream; {@link #isComplete} on the pollers (the
 * completion thread, a thread waiting for a future).
 */
final class CudaMarkers implements EventMarker.Events {

    private static final Logger LOG = System.getLogger(CudaMarkers.class.getName());

    private final CudaStream stream;
    private final CudaContext context;
    /** The sequence number of this stream's last completion marker. */
    private long markerSequence;
    /** When a marker of this stream has stayed not done long enough to ask the driver about a fault. */
    private final StallWatch stall = new StallWatch(StallWatch.FAULT_CHECK_NANOS);
    private final EventRing freeEvents = new EventRing(1024);
    /**
     * This stream's completion counter, which its marker stream writes each marker's number into, or null while
     * markers are polled through their events (the context has no counters, none was taken yet, or a write was
     * refused). Written by the enqueuing thread under the engine's lock, read by the pollers.
     */
    private volatile CompletionCounters.@Nullable Counter counter;
    /** The counter this stream holds, published in {@link #counter} once its first write is enqueued. */
    private CompletionCounters.@Nullable Counter held;
    /** The stream that writes the counter after waiting for each marker's event; made with the first counter. */
    private @Nullable CUstream markerStream;
    /** Whether this stream polls events for good: its context has no counters, or a counter write was refused. */
    private volatile boolean eventsOnly;
    /** The last marker after which the marker stream writes the counter: later ones are polled through their events. */
    private volatile long armedThrough;
    /** The last marker a poll saw done (a lower bound: set by pollers without a lock). */
    private volatile long doneThrough;
    /** When a marker's counter write is enqueued ({@link Arming}); from the context's setting. */
    private final Arming arming;

    CudaMarkers(CudaStream stream) {
        this.stream = stream;
        this.context = stream.context;
        this.arming = context.counters == null ? Arming.EVENTS : context.arming;
    }

    /**
     * When a marker's counter write ({@code cuStreamWaitEvent} + {@code cuStreamWriteValue32} on the marker stream) is
     * enqueued. Measured on the H200 (docs/decisions/0012-completion-counters.md): arming every marker when it is
     * recorded brought the idle round trip to C's (join p50 1.01-1.03× C) but cost launches 6-8 % (two driver calls
     * more per marker on the enqueuing thread); arming at the first poll kept launches as before but made the round
     * trip slower than with events. AUTO does each where it measured best.
     */
    enum Arming {
        /** A marker recorded on an idle stream when recorded, any other at its first poll that finds it not done. */
        AUTO,
        /** Every marker when recorded ({@code -Dsluice.completion=record}). */
        RECORD,
        /** Every marker at its first poll that finds it not done ({@code -Dsluice.completion=poll}). */
        POLL,
        /** None: every marker is polled through its event (no counters, or {@code -Dsluice.completion=events}). */
        EVENTS
    }

    /** Takes back a released marker's event (completion thread): into this stream's ring, else the context's pool. */
    @Override
    public void recycle(long event) {
        if (stream.isDestroyed() || !freeEvents.offer(event)) {
            context.markerEvents.give(event);
        }
    }

    /**
     * Whether marker {@code sequence} is done. With a completion counter, one read of host memory: no driver call
     * while markers keep completing. Without one, one {@code cuEventQuery} of the marker's event (events need no
     * current context). Either way, once the marker has stayed not done for {@link StallWatch#FAULT_CHECK_NANOS}
     * ({@link #faultCheckDue}), the driver is asked whether it finished or the context faulted: a faulted device
     * never writes the counter, and an event behind work that will never run (a gate, a faulted kernel) may keep
     * answering "not ready".
     */
    @Override
    public boolean isComplete(long event, long sequence) {
        CompletionCounters.Counter c = counter;
        if (c != null && armedThrough >= sequence) {
            if (c.reached(sequence)) {
                seenDone(sequence);
                return true;
            }
            return faultCheckDue(sequence) && (eventComplete(event) || finishedUnlessFaulted());
        }
        if (eventComplete(event)) {
            seenDone(sequence);
            return true;
        }
        if (arming == Arming.AUTO || arming == Arming.POLL) {
            arm(event, sequence, true); // a poller may never have enqueued: bind the context first
        }
        return faultCheckDue(sequence) && finishedUnlessFaulted();
    }

    /** Notes that marker {@code sequence} was seen done: a marker recorded while every earlier one is, is armed at once. */
    private void seenDone(long sequence) {
        if (sequence > doneThrough) {
            doneThrough = sequence; // racy max: a stale value only moves one marker's arming from record to its first poll
        }
    }

    /**
     * The first poll that finds marker {@code sequence} not done has the marker stream write the counter after its
     * event, so that later polls read memory. Armed here, on the polling thread, rather than when the marker is
     * recorded, for a marker recorded behind others still running (work streamed to the device): the two driver calls
     * then leave the enqueuing thread, and a marker done by its first poll costs one event query and nothing more.
     * Markers are polled oldest first, so they are armed in order; the lock serialises pollers and the enqueuing thread.
     */
    private synchronized void arm(long event, long sequence, boolean bind) {
        if (arming != Arming.EVENTS && armedThrough < sequence && !stream.isDestroyed() && !eventsOnly) {
            if (bind) {
                context.cu.bind();
            }
            writeCounterAfter(event, sequence);
        }
    }

    /** One {@code cuEventQuery}: whether the event completed; a sticky error marks the context faulted and is thrown. */
    private boolean eventComplete(long event) {
        int r = Cu.eventQuery(event);
        if (r == Cu.ERROR_INVALID_CONTEXT) { // this driver wants the context bound after all
            context.cu.bind();
            r = Cu.eventQuery(event);
        }
        if (r == Cu.SUCCESS) {
            return true;
        }
        if (r == Cu.ERROR_NOT_READY) {
            return false;
        }
        context.cu.markFaulted();
        throw Cu.fault(r, "cuEventQuery (completion marker on " + context.description() + ")");
    }

    /** Sleeps through the context's {@link MarkerWaiter} (the BLOCKING wait strategy's helper thread). */
    @Override
    public void await(EventMarker marker, long timeoutNanos) {
        context.waiter().await(marker, timeoutNanos);
    }

    @Override
    public void waitOnDevice(long stream, long event) {
        Cu.check(Cu.streamWaitEvent(stream, event), "cuStreamWaitEvent (marker)");
    }

    /**
     * Whether a poll that found marker {@code sequence} not done should also ask the driver whether the context
     * faulted ({@code cuStreamQuery}): once that marker has stayed not done for {@link StallWatch#FAULT_CHECK_NANOS}
     * ({@link StallWatch}). Never while capturing (a query would invalidate the capture) or once destroyed.
     */
    boolean faultCheckDue(long sequence) {
        return stall.due(sequence, System.nanoTime()) && !stream.isDestroyed() && !stream.isCapturing();
    }

    /**
     * The fault check of a marker of this stream once {@link #faultCheckDue} says so ({@code cuStreamQuery}): true if
     * everything enqueued on the stream has finished, the marker included; false while work is still running, or on
     * an error that does not stop the context; a sticky error marks the context faulted and is thrown.
     */
    boolean finishedUnlessFaulted() {
        context.cu.bind();
        int r = Cu.streamQuery(stream.address);
        if (r == Cu.SUCCESS) {
            return true;
        }
        if (r == Cu.ERROR_NOT_READY || !Cu.isSticky(r)) {
            return false;
        }
        context.cu.markFaulted();
        throw Cu.fault(r, "cuStreamQuery (completion marker on " + context.description() + ")");
    }

    /**
     * A pooled event recorded on the stream: from this stream's ring of released marker events, else the context's
     * pool. No lock and no allocation but the marker itself while the ring has events.
     */
    EventMarker record() {
        long e = freeEvents.poll();
        if (e == 0) {
            context.cu.bind();
            e = context.markerEvents.take();
        }
        int r = Cu.eventRecord(e, stream.address);
        if (r == Cu.ERROR_INVALID_CONTEXT) { // a thread that never enqueued (a completion thread recording a batch)
            context.cu.bind();
            r = Cu.eventRecord(e, stream.address);
        }
        if (r != Cu.SUCCESS) {
            context.markerEvents.give(e);
            throw Cu.error(r, "cuEventRecord (completion marker)");
        }
        long sequence = ++markerSequence;
        if (arming == Arming.RECORD || (arming == Arming.AUTO && doneThrough == sequence - 1)) {
            // A marker on an idle stream (every earlier one seen done): someone is likely to wait for it now, and
            // arming it here saves the poll that would arm it later from the time until its future completes. The
            // context is current here (the record just succeeded): no bind.
            arm(e, sequence, false);
        }
        return new EventMarker(this, sequence, e, null);
    }

    /**
     * Has the marker stream write {@code sequence} into this stream's counter once {@code event} completes
     * ({@code cuStreamWaitEvent} + {@code cuStreamWriteValue32}; {@link CompletionCounters} says why on a stream of its
     * own). Takes the counter and makes the marker stream with the first marker. If the driver refuses any of it, the
     * stream polls its markers' events from now on, which every marker has: its own, for cross-stream waits.
     */
    private void writeCounterAfter(long event, long sequence) {
        CompletionCounters counters = context.counters;
        if (counters == null || stream.isCapturing()) { // a marker recorded while capturing would be captured: the engine records none
            eventsOnly = counters == null;
            return;
        }
        CompletionCounters.Counter c = counter;
        boolean first = c == null;
        try {
            if (first) {
                c = counters.tryAcquire();
                if (c == null) {
                    return; // other streams hold every counter: this marker is polled through its event, the next asks again
                }
                held = c;
                if (markerStream == null) {
                    context.cu.bind();
                    CUstream ms = new CUstream();
                    Jc.check(JCudaDriver.cuStreamCreate(ms, 1), "cuStreamCreate (marker stream)"); // 1: CU_STREAM_NON_BLOCKING
                    markerStream = ms;
                }
            }
            long ms = Jc.address(markerStream);
            int r = Cu.streamWaitEvent(ms, event);
            if (r == Cu.SUCCESS) {
                r = Cu.streamWriteValue32(ms, c.device(), (int) sequence, 0);
            }
            if (r != Cu.SUCCESS) {
                throw Cu.error(r, "cuStreamWaitEvent + cuStreamWriteValue32 (completion counter)");
            }
            armedThrough = sequence;
            if (first) {
                counter = c; // published after the first write is enqueued: a poll before it asks the marker's event
            }
        } catch (RuntimeException refused) {
            LOG.log(Level.DEBUG, "completion counter refused on " + stream + "; polling events", refused);
            eventsOnly = true;
            counter = null;
            held = null; // dropped, not released: a write enqueued earlier may still land
        }
    }

    /** Gives the events of this stream's ring back to the context's pool; when the stream is destroyed. */
    void giveBackEvents() {
        for (long e; (e = freeEvents.poll()) != 0; ) {
            context.markerEvents.give(e);
        }
    }

    /**
     * Synchronises and destroys the marker stream, then gives the counter back: only once its last write has landed
     * may the counter be handed to another stream and set to 0. If the synchronisation fails (the context faulted),
     * the counter is dropped; its page is freed with the context.
     */
    synchronized void destroyMarkerStream() {
        CUstream ms = markerStream;
        if (ms == null) {
            return;
        }
        markerStream = null;
        CompletionCounters.Counter c = held;
        held = null;
        // Polls from now on ask the markers' events (still theirs until released): once given back, the counter may
        // be handed to another stream and set to 0, which a marker of this one must not read as "not done" for ever.
        counter = null;
        int r = JCudaDriver.cuStreamSynchronize(ms);
        JCudaDriver.cuStreamDestroy(ms);
        CompletionCounters counters = context.counters;
        if (c != null && counters != null && r == Cu.SUCCESS) {
            counters.release(c);
        }
    }
}
