package dev.sluice;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Remembers, per stream, the last operation that used a piece of memory, so that freeing it waits for every use
 * (cudarc's habit: memory is never freed while the device may still touch it).
 *
 * <p>A use is (stream, sequence): the operation's {@link DeviceFuture} serves only as its record, for its sequence and
 * its marker; its public state (which a user may cancel) is never consulted. Whether the device has finished a use is
 * read from the stream's completed sequence ({@link StreamCore#completed()}). Finished uses are dropped when a new
 * stream would not fit, so memory used by many short-lived streams over its life remembers only those with work still
 * pending. Cheap on the hot path: a short array scanned under the tracker's own monitor.
 */
final class UseTracker {

    private StreamCore[] streams = new StreamCore[2];
    private DeviceFuture<?>[] lastUses = new DeviceFuture<?>[2];
    private int size;
    /** Enqueues between {@link #claim} and {@link #noteUse}: a free must wait for them to be noted. */
    private int claims;

    /**
     * Claims the memory for an enqueue about to use it, under the enqueuing stream's lock and before the backend is
     * called: refused if it was closed since the caller's check. A free waits until every claim is noted as a use
     * ({@link #noteUse}) or dropped ({@link #unclaim}), so an enqueue racing with {@code close()} either sees it closed or
     * is waited for.
     *
     * @throws ClosedResourceException naming {@code argument} if {@code closed} is set
     */
    synchronized void claim(java.util.concurrent.atomic.AtomicBoolean closed, String argument, Object what) {
        if (closed.get()) {
            throw new ClosedResourceException(argument + " " + what);
        }
        claims++;
    }

    /** {@link #claim} on the hot path of launches: false, and no claim, if {@code closed} is set. */
    synchronized boolean claimIfOpen(java.util.concurrent.atomic.AtomicBoolean closed) {
        if (closed.get()) {
            return false;
        }
        claims++;
        return true;
    }

    /** Drops a claim whose enqueue failed before it was noted. */
    synchronized void unclaim() {
        if (--claims == 0) {
            notifyAll();
        }
    }

    /** Notes {@code use} as the last use by {@code stream}, ending the claim made for it. */
    synchronized void noteUse(StreamCore stream, DeviceFuture<?> use) {
        if (--claims == 0) {
            notifyAll();
        }
        record(stream, use);
    }

    /** Under the monitor. */
    private void record(StreamCore stream, DeviceFuture<?> use) {
        for (int i = 0; i < size; i++) {
            if (streams[i] == stream) {
                lastUses[i] = use;
                return;
            }
        }
        if (size == streams.length) {
            dropFinished();
            if (size == streams.length) {
                streams = Arrays.copyOf(streams, size * 2);
                lastUses = Arrays.copyOf(lastUses, size * 2);
            }
        }
        streams[size] = stream;
        lastUses[size++] = use;
    }

    /** Removes the uses the device has finished; under the monitor. */
    private void dropFinished() {
        int kept = 0;
        for (int i = 0; i < size; i++) {
            if (!streams[i].hasCompleted(lastUses[i].sequence())) {
                streams[kept] = streams[i];
                lastUses[kept++] = lastUses[i];
            }
        }
        Arrays.fill(streams, kept, size, null);
        Arrays.fill(lastUses, kept, size, null);
        size = kept;
    }

    /** How many streams this tracker remembers (for tests of its bound). */
    synchronized int remembered() {
        return size;
    }

    /**
     * The last uses the device has not finished, by any stream other than {@code except} (which orders itself); first
     * waits for enqueues that claimed the memory to note their use (a few microseconds: they hold a stream's lock).
     */
    synchronized List<DeviceFuture<?>> pendingUses(@Nullable StreamCore except) {
        boolean interrupted = false;
        while (claims > 0) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        List<DeviceFuture<?>> out = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            if (streams[i] != except && !streams[i].hasCompleted(lastUses[i].sequence())) {
                out.add(lastUses[i]);
            }
        }
        return out;
    }

    /**
     * Runs {@code action} once the device has finished every use noted so far: at once on the caller if it has, else on
     * the completion thread. Never runs if the context faults first; its owner frees the memory when it closes.
     */
    void whenAllFinished(Runnable action) {
        List<DeviceFuture<?>> pending = pendingUses(null);
        if (pending.isEmpty()) {
            action.run();
            return;
        }
        AtomicInteger left = new AtomicInteger(pending.size());
        Runnable countDown = () -> {
            if (left.decrementAndGet() == 0) {
                action.run();
            }
        };
        for (DeviceFuture<?> use : pending) {
            StreamCore core = use.stream().core; // a use always has a stream
            core.afterCompleted(use.sequence(), countDown);
            use.seal(); // its group must get a marker to complete; not under any lock here
        }
    }
}
