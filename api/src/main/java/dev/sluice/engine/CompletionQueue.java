package dev.sluice.engine;

import org.jspecify.annotations.Nullable;

/**
 * The pending futures of one stream, oldest first: a queue linked through the futures themselves
 * ({@link Operation#next}), with one producer at a time (enqueues hold the stream's lock) and one consumer (the
 * completion thread). Adding is two plain writes, one with release; no node is allocated and nothing is
 * compare-and-set, which a {@code ConcurrentLinkedQueue} does on every enqueue.
 */
final class CompletionQueue {
    // Each end on lines of its own (OwnLine): the completion thread moves the head for every future, and every enqueue
    // moves the tail; side by side, each would take the line from the other's core.
    /** The last future taken (a placeholder at first); moved by the completion thread only. */
    private final OwnLine.OfReference<Operation<?>> head;
    /** The last future added; read and written under the stream's lock only. */
    private final OwnLine.OfReference<Operation<?>> tail;

    CompletionQueue() {
        Operation<?> placeholder = new InternalOperation();
        head = new OwnLine.OfReference<>(placeholder);
        tail = new OwnLine.OfReference<>(placeholder);
    }

    /** Adds {@code f} last. Under the stream's lock. */
    void add(Operation<?> f) {
        Operation<?> t = tail.get();
        tail.set(f);
        t.setNext(f); // release: publishes f's fields to the completion thread
    }

    /** The last future added, or null if none was. Under the stream's lock. */
    @Nullable Operation<?> last() {
        Operation<?> t = tail.get();
        return t.seq() < 0 ? null : t; // the placeholder's sequence is -1; an operation's starts at 1
    }

    /**
     * The oldest future, or null. Exact on the completion thread. On another thread it may return null for a queue that
     * is not empty, if the completion thread takes a future meanwhile: {@code mark()}'s "is the stream idle?" tolerates
     * that (the operation then gets a marker of its own); nothing else may rely on it off the completion thread.
     */
    @Nullable Operation<?> peek() {
        return head.getVolatile().next();
    }

    /** Takes the oldest future, or returns null. The completion thread only. */
    @Nullable Operation<?> poll() {
        Operation<?> h = head.getVolatile();
        Operation<?> n = h.next();
        if (n != null) {
            head.setVolatile(n);
            // h is no longer the tail (n came after it), so no enqueue writes h.next again; unlinking it keeps a future
            // the caller holds from keeping every later one reachable
            h.setNext(null);
        }
        return n;
    }

    boolean isEmpty() {
        return peek() == null;
    }
}
