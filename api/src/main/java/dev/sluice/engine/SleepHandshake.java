package dev.sluice.engine;

import java.lang.invoke.VarHandle;

/**
 * The completion thread going to sleep with nothing pending, against an enqueue that queues a future meanwhile: one of
 * the two must see the other, or the future waits for the next enqueue to wake the thread (for ever, if none comes).
 *
 * <p>It is the store-buffering handshake (Dekker's): each side writes its own location, then reads the other's. The
 * completion thread writes {@code sleeping} and then reads the queues ({@link #settle()} before its last look); an
 * enqueue writes the queue and then reads {@code sleeping} ({@link #mustWake()}). A queue's add is a release store
 * ({@link CompletionQueue#add}), and a release store may be ordered after a later load of another location: on x86 the
 * store waits in the core's store buffer while the load goes ahead. Both sides could then read the old value, the
 * thread would park with a future queued, and the enqueue would not unpark it. The reactive module's Reactive Streams
 * tests saw exactly that on a 16-core host, about once a run: a pipeline's completion signal missing for 5 s, until the
 * next test's enqueue woke the thread. A full fence on each side, between its write and its read, forbids the outcome
 * ({@code SleepHandshakeStress}). The enqueue's fence costs one locked instruction per enqueue, which
 * {@code ApiOverhead} on a 2-core machine did not tell apart from its noise (docs/benchmarks.md).
 *
 * <p>Thread-safe; the completion thread is the only one to call {@link #settle()} and {@link #rise()}.
 */
final class SleepHandshake {

    private volatile boolean sleeping;

    /**
     * The completion thread is about to park: called before its last look at the queues, which it then makes after
     * the fence. If that look finds work, it calls {@link #rise()} and does not park.
     */
    void settle() {
        sleeping = true;
        VarHandle.fullFence(); // the write above before the queue reads that follow: see the class comment
    }

    /** The completion thread is awake (it found work on its last look, or was unparked). */
    void rise() {
        sleeping = false;
    }

    /**
     * On an enqueue, after its future was queued: whether the completion thread may be asleep and must be unparked.
     * Never false while the thread sleeps without having seen the future.
     */
    boolean mustWake() {
        VarHandle.fullFence(); // the queue's write before this read: see the class comment
        return sleeping;
    }
}
