package dev.sluice.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.InvalidArgumentException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.function.Executable;

/**
 * What the tests of bad input and concurrent misuse of a public call assert, for every module's tests (it comes with
 * the api's test-jar): a refusal names its argument and says what was wrong; a call made from two threads at once
 * neither throws nor hangs.
 */
public final class Attacks {

    private Attacks() {
    }

    /**
     * Asserts that {@code call} throws an {@link InvalidArgumentException} naming {@code argument} whose message holds
     * each of {@code words}; returns it.
     */
    public static InvalidArgumentException assertRefused(String argument, Executable call, String... words) {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, call);
        assertEquals(argument, e.argument(), e.getMessage());
        for (String w : words) {
            assertTrue(e.getMessage().contains(w), () -> "'" + w + "' in: " + e.getMessage());
        }
        return e;
    }

    /**
     * Runs {@code call} on two threads released at once; fails with what either threw, or if either has not returned
     * within {@code seconds}.
     */
    public static void atOnceFromTwoThreads(Executable call, long seconds) throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                    call.execute();
                } catch (Throwable e) {
                    failures.add(e);
                }
            }));
        }
        start.countDown();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        for (Thread t : threads) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime())));
            assertFalse(t.isAlive(), () -> "the call has not returned on " + t + " after " + seconds + " s");
        }
        assertEquals(List.of(), failures);
    }
}
