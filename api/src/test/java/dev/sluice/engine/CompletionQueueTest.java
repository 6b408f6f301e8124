package dev.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The completion engine's per-stream queue, linked through the futures themselves ({@link CompletionQueue}). */
class CompletionQueueTest {

    private static Operation<Void> future(long sequence) {
        Operation<Void> f = new InternalOperation();
        f.bind(null, sequence, null, null);
        return f;
    }

    @Test
    void futuresComeOutInTheOrderTheyWentIn() {
        CompletionQueue q = new CompletionQueue();
        assertTrue(q.isEmpty());
        assertNull(q.peek());
        assertNull(q.poll());
        Operation<Void> a = future(1);
        Operation<Void> b = future(2);
        q.add(a);
        q.add(b);
        assertFalse(q.isEmpty());
        assertSame(a, q.peek());
        assertSame(a, q.poll());
        assertSame(b, q.peek());
        Operation<Void> c = future(3);
        q.add(c); // added after some were taken
        assertSame(b, q.poll());
        assertSame(c, q.poll());
        assertTrue(q.isEmpty());
        assertNull(q.poll());
        Operation<Void> d = future(4);
        q.add(d); // added once empty: behind the last one taken
        assertSame(d, q.poll());
    }

    @Test
    void aTakenFutureNoLongerLinksToTheOnesAfterIt() {
        CompletionQueue q = new CompletionQueue();
        Operation<Void> a = future(1);
        Operation<Void> b = future(2);
        Operation<Void> c = future(3);
        q.add(a);
        q.add(b);
        q.add(c);
        q.poll();
        q.poll();
        // a future a caller keeps must not keep every later one (and its value) reachable
        assertNull(a.next(), "a was unlinked once b was taken");
        assertSame(c, b.next(), "b is the queue's head now: the link to c is the queue itself");
        q.poll();
        assertNull(b.next());
    }

    @Test
    void lastIsTheLastFutureAddedEvenOnceTakenAndNothingBeforeTheFirst() {
        CompletionQueue q = new CompletionQueue();
        assertNull(q.last(), "the placeholder is no operation's future");
        Operation<Void> a = future(1);
        q.add(a);
        assertSame(a, q.last());
        Operation<Void> b = future(2);
        q.add(b);
        assertSame(b, q.last());
        q.poll();
        q.poll();
        assertSame(b, q.last(), "a synchronize() still waits for the last operation after the engine has taken it");
    }
}
