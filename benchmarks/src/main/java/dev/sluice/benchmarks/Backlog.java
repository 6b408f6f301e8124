package dev.sluice.benchmarks;

import java.util.concurrent.CompletableFuture;

/**
 * Bounds the work in flight while a benchmark enqueues without draining the stream: keeps the futures of the
 * last {@code capacity} operations and, before overwriting one, waits for it if it has not completed. On a
 * GPU, where the device runs an empty kernel faster than the host enqueues it, the wait never happens and
 * the figure is the host cost alone; on the CPU simulator, whose "device" is slower than the enqueue, the
 * figure becomes the simulator's throughput. One array store and one {@code isDone} per operation.
 */
final class Backlog {

    private final CompletableFuture<?>[] ring;
    private final int mask;
    private long count;

    Backlog(int capacity) {
        if (Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity " + capacity + " is not a power of two");
        }
        ring = new CompletableFuture<?>[capacity];
        mask = capacity - 1;
    }

    /** Keeps {@code f}, first waiting for the operation it replaces if that has not completed; returns {@code f}. */
    <F extends CompletableFuture<?>> F add(F f) {
        int i = (int) (count++ & mask);
        CompletableFuture<?> old = ring[i];
        if (old != null && !old.isDone()) {
            old.join();
        }
        ring[i] = f;
        return f;
    }

    /** Waits for every operation added. */
    void drain() {
        for (int i = 0; i < ring.length; i++) {
            CompletableFuture<?> f = ring[i];
            if (f != null) {
                f.join();
                ring[i] = null;
            }
        }
    }
}
