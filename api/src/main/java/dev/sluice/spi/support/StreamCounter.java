package dev.sluice.spi.support;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One stream's side of {@link CompletionCounters}: the counter it holds, the marker stream that writes it, which of the
 * stream's markers are <em>armed</em> (a write of their number is enqueued on the marker stream after their event) and
 * which were seen done. A marker not armed is polled through its event, as where there are no counters at all. The
 * backend's stream owns one and calls it from its marker code: {@link #recorded} when it records a marker,
 * {@link #awaited} when a thread is about to wait for one, {@link #reached} and {@link #polledNotDone} when a poller
 * asks about one, {@link #seenDone} when a poll through the driver found one done, and {@link #close()} when the stream
 * is destroyed. The driver calls themselves are the backend's ({@link Writer}).
 *
 * <p><b>When a marker is armed</b> ({@link Arming}): arming costs two driver calls, and where they are made matters.
 * Measured on an H200 (docs/decisions/0012-completion-counters.md): arming every marker as it is recorded brought the
 * idle round trip to C's but put two driver calls per marker on the enqueuing thread (launches 1.33–1.77× C's); arming
 * at the first poll kept launches as they were and made the round trip slower, since the write is enqueued late and the
 * poll's event query competes with the driver calls around it. By default a marker recorded on an idle stream (every
 * earlier marker seen done: someone is likely to wait for it now) is armed when recorded, any other at its first poll
 * that finds it not done. Arming when a thread is about to wait ({@link Arming#AWAITED}) kept launches as the first
 * poll does, but the round trip was slower than arming at record: the waiting thread's arming and the completion
 * thread's first event query meet in the driver.
 *
 * <p><b>Order.</b> {@link CompletionCounters} needs the writes of one counter to carry growing numbers. Arming is under
 * this object's lock and only ever arms a marker later than every marker armed before, so the marker stream's writes
 * are enqueued in increasing order; a marker seen done is never armed (its event may already be recorded again for
 * later work; a write after it would then only be late, never out of order, but it is not needed at all).
 *
 * <p>For backend authors: thread-safe. {@link #reached} and {@link #isArmed} read two volatile fields and the counter,
 * without a lock or an allocation; the rest takes the lock only when it may arm.
 */
public final class StreamCounter {

    private static final Logger LOG = System.getLogger(StreamCounter.class.getName());

    /** When a marker's counter write is enqueued; a context's setting, from {@code -Dsluice.completion}. */
    public enum Arming {
        /** A marker recorded on an idle stream when recorded, any other at its first poll that finds it not done. */
        AUTO,
        /** Every marker when it is recorded ({@code -Dsluice.completion=record}). */
        RECORD,
        /**
         * A marker when a thread is about to wait for it or looks at its future, else at its first poll that finds it
         * not done ({@code -Dsluice.completion=awaited}).
         */
        AWAITED,
        /** Every marker at the first poll that finds it not done ({@code -Dsluice.completion=poll}). */
        POLL,
        /** None: every marker is polled through its event ({@code -Dsluice.completion=events}, or no counters). */
        EVENTS;

        /**
         * The setting named {@code value} ({@code record}, {@code awaited}, {@code poll}, {@code events}, any case); AUTO
         * for anything else, an empty value included.
         */
        public static Arming of(String value) {
            return switch (value.toLowerCase(Locale.ROOT)) {
                case "record" -> RECORD;
                case "awaited" -> AWAITED;
                case "poll" -> POLL;
                case "events" -> EVENTS;
                default -> AUTO;
            };
        }
    }

    /** The backend's driver calls for one stream's counter. */
    public interface Writer {

        /**
         * Makes the context current on the calling thread: a poller or a waiting thread may never have enqueued. Not
         * called on the thread that just recorded the marker, which has it current (a native call saved per marker on
         * the enqueue path).
         *
         * @throws RuntimeException if the driver refuses
         */
        void bind();

        /**
         * Makes the marker stream: a non-blocking stream of the context, which is current on the calling thread.
         *
         * @return the native stream
         * @throws RuntimeException if the driver refuses
         */
        long createStream();

        /**
         * Enqueues on marker stream {@code stream} a wait for {@code event}, then a device write of {@code value} at
         * device address {@code device} (a 32-bit word). The context is current on the calling thread.
         *
         * @throws RuntimeException if the driver refuses either
         */
        void writeAfter(long stream, long event, long device, int value);

        /**
         * Synchronises, then destroys marker stream {@code stream}.
         *
         * @return whether the synchronisation succeeded: every write enqueued on it has landed
         */
        boolean destroyStream(long stream);
    }

    private final @Nullable CompletionCounters counters;
    private final Arming arming;
    private final Writer writer;
    private final String owner;
    /** The counter the marker stream writes, published once its first write is enqueued; null while markers poll events. */
    private volatile CompletionCounters.@Nullable Counter counter;
    /** The counter this stream holds (published in {@link #counter} after its first write). Under the lock. */
    private CompletionCounters.@Nullable Counter held;
    /** The marker stream, 0 until the first counter. Under the lock. */
    private long markerStream;
    /** Whether markers are polled through their events for good: no counters, a refused write, or closed. */
    private volatile boolean eventsOnly;
    /** The last marker whose number the marker stream writes: later ones are polled through their events. */
    private volatile long armedThrough;
    /** The last marker seen done (a lower bound: pollers set it without the lock). */
    private volatile long doneThrough;

    /**
     * @param counters the context's counters, or null where it has none (then every marker polls its event)
     * @param arming   when markers are armed; {@link Arming#EVENTS} never
     * @param writer   the backend's driver calls
     * @param owner    the stream, for messages
     */
    public StreamCounter(@Nullable CompletionCounters counters, Arming arming, Writer writer, String owner) {
        this.counters = counters;
        this.arming = counters == null ? Arming.EVENTS : Objects.requireNonNull(arming, "arming");
        this.writer = Objects.requireNonNull(writer, "writer");
        this.owner = Objects.requireNonNull(owner, "owner");
        this.eventsOnly = this.arming == Arming.EVENTS;
    }

    /** When this stream's markers are armed: the context's setting, {@link Arming#EVENTS} where it has no counters. */
    public Arming arming() {
        return arming;
    }

    /**
     * Marker {@code sequence} was just recorded after {@code event}: armed now under {@link Arming#RECORD}, and under
     * {@link Arming#AUTO} if every earlier marker of the stream was seen done (an idle stream). On the thread that
     * recorded it, under the engine's lock for the stream.
     *
     * @param capturing whether the stream is capturing a graph (then nothing is armed: a marker stream waiting for an
     *                  event of a capturing stream would join the capture)
     */
    public void recorded(long event, long sequence, boolean capturing) {
        if (arming == Arming.RECORD || (arming == Arming.AUTO && doneThrough == sequence - 1)) {
            arm(event, sequence, capturing, true);
        }
    }

    /**
     * A thread is about to wait for marker {@code sequence} (a {@code join}, a look at its future): under
     * {@link Arming#AWAITED}, armed now if it is not. Any thread; costs a field read under the other settings.
     */
    public void awaited(long event, long sequence, boolean capturing) {
        if (arming == Arming.AWAITED && armedThrough < sequence && doneThrough < sequence && !eventsOnly) {
            arm(event, sequence, capturing, false);
        }
    }

    /**
     * A poll through the marker's event found marker {@code sequence} not done: under every setting but
     * {@link Arming#RECORD} and {@link Arming#EVENTS}, armed now, so that later polls read memory. Markers are polled
     * oldest first, so they are armed in order.
     */
    public void polledNotDone(long event, long sequence, boolean capturing) {
        if (arming != Arming.RECORD && arming != Arming.EVENTS && armedThrough < sequence && !eventsOnly) {
            arm(event, sequence, capturing, false);
        }
    }

    /** Whether marker {@code sequence} is armed: its completion is read from the counter ({@link #reached}). */
    public boolean isArmed(long sequence) {
        return armedThrough >= sequence && counter != null;
    }

    /**
     * Whether the counter says marker {@code sequence} is done: false if it is not armed or not reached yet. One read of
     * host memory; notes the marker as seen done.
     */
    public boolean reached(long sequence) {
        CompletionCounters.Counter c = counter;
        if (c != null && armedThrough >= sequence && c.reached(sequence)) {
            seenDone(sequence);
            return true;
        }
        return false;
    }

    /** Notes that marker {@code sequence} was seen done (by any means): it is never armed after this. */
    public void seenDone(long sequence) {
        if (sequence > doneThrough) {
            doneThrough = sequence; // racy max: a stale value only lets a done marker be armed, which is late, not wrong
        }
    }

    /**
     * Has the marker stream write {@code sequence} into the counter once {@code event} completes. Takes a counter and
     * makes the marker stream at the first. If the driver refuses any of it, the stream polls its markers' events from
     * now on, which every marker has: its own, for cross-stream waits.
     *
     * @param bound whether the calling thread has the context current (it just recorded the marker)
     */
    private synchronized void arm(long event, long sequence, boolean capturing, boolean bound) {
        CompletionCounters pool = counters;
        if (pool == null || eventsOnly || capturing || armedThrough >= sequence || doneThrough >= sequence) {
            return;
        }
        CompletionCounters.Counter c = counter;
        boolean first = c == null;
        try {
            if (!bound) {
                writer.bind();
            }
            if (first) {
                c = held;
                if (c == null) {
                    c = pool.tryAcquire();
                    if (c == null) {
                        return; // other streams hold every counter: this marker is polled through its event, the next asks again
                    }
                    held = c;
                }
                if (markerStream == 0) {
                    markerStream = writer.createStream();
                }
            }
            writer.writeAfter(markerStream, event, c.device(), (int) sequence);
            armedThrough = sequence;
            if (first) {
                counter = c; // published after the first write is enqueued: a poll before it asks the marker's event
            }
        } catch (RuntimeException refused) {
            LOG.log(Level.DEBUG, "completion counter refused on " + owner + "; polling events", refused);
            eventsOnly = true;
            counter = null;
            held = null; // dropped, not released: a write enqueued earlier may still land
        }
    }

    /**
     * Stops arming, synchronises and destroys the marker stream, then gives the counter back: only once its last write
     * has landed may the counter be handed to another stream and set to 0. If the synchronisation fails (the context
     * faulted), the counter is dropped; its page is freed with the context's counters. Polls from now on ask the
     * markers' events (still theirs until released). Idempotent; any thread.
     */
    public synchronized void close() {
        eventsOnly = true;
        counter = null; // once given back, the counter may be set to 0, which a marker of this stream must not read as "not done"
        CompletionCounters.Counter c = held;
        held = null;
        long ms = markerStream;
        markerStream = 0;
        boolean drained = ms == 0;
        if (ms != 0) {
            try {
                drained = writer.destroyStream(ms);
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "destroying the marker stream of " + owner + " failed", e);
                drained = false;
            }
        }
        CompletionCounters pool = counters;
        if (c != null && pool != null && drained) {
            pool.release(c);
        }
    }

    @Override
    public String toString() {
        return "StreamCounter[" + owner + ", " + arming + ", armed through " + armedThrough + ", done through "
                + doneThrough + (eventsOnly ? ", events only]" : "]");
    }
}
