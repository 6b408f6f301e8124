package dev.sluice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The sync façade's wait throws on an interrupt only where it would actually wait. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SyncStreamInterruptTest {

    @AfterEach
    void clearFlag() {
        Thread.interrupted();
    }

    @Test
    void anInterruptedCallerGetsAResultAlreadyThereAndKeepsItsFlag() {
        Thread.currentThread().interrupt();
        assertEquals(7, SyncStream.awaitInterruptibly(CompletableFuture.completedFuture(7)));
        assertTrue(Thread.currentThread().isInterrupted(), "the flag is left for the caller's next wait");
    }

    @Test
    void anInterruptedCallerGetsAFailureAlreadyThereRatherThanTheInterrupt() {
        InvalidArgumentException failure = new InvalidArgumentException("x", "bad");
        Thread.currentThread().interrupt();
        assertSame(failure, assertThrows(InvalidArgumentException.class,
                () -> SyncStream.awaitInterruptibly(CompletableFuture.failedFuture(failure))));
        assertTrue(Thread.currentThread().isInterrupted());
    }

    @Test
    void anInterruptedCallerThatWouldWaitThrowsAtOnceAndKeepsItsFlag() {
        Thread.currentThread().interrupt();
        SluiceException e = assertThrows(SluiceException.class,
                () -> SyncStream.awaitInterruptibly(new CompletableFuture<Integer>()));
        assertInstanceOf(InterruptedException.class, e.getCause());
        assertTrue(Thread.currentThread().isInterrupted());
    }
}
