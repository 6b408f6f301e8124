package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceAttribute;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostData;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.LaunchConfig;
import dev.sluice.SluiceException;
import dev.sluice.UnsupportedOnBackendException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

/**
 * The base of every conformance test class: a fresh context per test (closed afterwards with everything
 * else the test opened), the kernels compiled on it, and helpers for waiting with a bound. A hang fails the
 * test after a minute instead of blocking CI.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
public abstract class ConformanceBase {

    /** How long any single wait in a test may take before the test fails. */
    protected static final long WAIT_SECONDS = 30;

    /** The context of the current test: device 0 of the backend, default options. */
    protected DeviceContext ctx;

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final Map<DeviceContext, Map<Kernel, DeviceFunction>> compiled = new ConcurrentHashMap<>();

    /** The backend under test. */
    protected abstract ConformanceTarget target();

    /**
     * The leak detector's reports: tests here drop buffers without closing them and let the context's close free them,
     * so a garbage collection in between reports a leak of the test's own making, at random, and its report may be
     * written later, from the detector's own thread, after the test has ended. The detector stays on (the suite still
     * checks that it frees nothing early); its reports are kept off the console from the first test of the suite on,
     * for the rest of the test JVM. {@code LeakDetectorTest} checks the reports themselves, with a handler of its own.
     */
    private static final java.util.logging.Logger LEAK_REPORTS = java.util.logging.Logger.getLogger("dev.sluice.leaks");

    @BeforeEach
    void openContext() {
        LEAK_REPORTS.setUseParentHandlers(false);
        ctx = open(ContextOptions.defaults());
    }

    @AfterEach
    @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void closeEverything() throws Exception {
        Exception first = null;
        for (int i = toClose.size() - 1; i >= 0; i--) {
            try {
                toClose.get(i).close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        toClose.clear();
        compiled.clear();
        if (first != null) {
            throw first;
        }
    }

    /** Opens another context on device 0, closed after the test. */
    protected DeviceContext open(ContextOptions options) {
        return open(0, options);
    }

    /** Opens a context on {@code deviceId}, closed after the test. */
    protected DeviceContext open(int deviceId, ContextOptions options) {
        DeviceContext c = target().open(deviceId, options);
        toClose.add(c);
        return c;
    }

    /**
     * A context of its own for tests that fault the device: on CUDA not the primary context, so the sticky
     * error stays inside it.
     */
    protected DeviceContext openIsolated() {
        return open(ContextOptions.defaults().withPrimaryContext(false));
    }

    /** Closes {@code c} after the test (before the contexts opened earlier). */
    protected <T extends AutoCloseable> T closeLater(T c) {
        toClose.add(c);
        return c;
    }

    /** {@code kernel} compiled once per context and test. */
    protected DeviceFunction fn(DeviceContext c, Kernel kernel) {
        return compiled.computeIfAbsent(c, k -> new ConcurrentHashMap<>()).computeIfAbsent(kernel, c::compile);
    }

    protected DeviceFunction fn(Kernel kernel) {
        return fn(ctx, kernel);
    }

    // ---------------------------------------------------------------- waiting

    /** Throws {@code t} whatever its type: what a Kotlin or Scala body, or a sneaky rethrow, may do. */
    @SuppressWarnings("unchecked")
    protected static <E extends Throwable> void throwUnchecked(Throwable t) throws E {
        throw (E) t;
    }

    /** The future's value, failing the test if it fails or takes longer than {@link #WAIT_SECONDS}. */
    protected static <T> T await(Future<T> f) {
        try {
            return f.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("operation failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("operation did not complete within " + WAIT_SECONDS + " s: " + f);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** The exception {@code f} completes with (unwrapped); fails the test if it completes normally or hangs. */
    protected static Throwable awaitFailure(Future<?> f) {
        try {
            Object v = f.get(WAIT_SECONDS, TimeUnit.SECONDS);
            throw new AssertionError("expected " + f + " to fail, but it completed with " + v);
        } catch (ExecutionException e) {
            return unwrap(e.getCause());
        } catch (CancellationException e) {
            return e;
        } catch (TimeoutException e) {
            throw new AssertionError("operation did not complete within " + WAIT_SECONDS + " s: " + f);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    protected static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** Asserts that {@code f} has not completed, after giving it {@code millis} to (wrongly) do so. */
    protected static void assertStaysPending(Future<?> f, long millis, String why) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (f.isDone()) {
            fail(why + ": " + f + " completed");
        }
    }

    // ---------------------------------------------------------------- device work

    /** Device attribute, or {@code fallback} where the backend cannot report it. */
    protected static long attributeOr(DeviceContext c, DeviceAttribute a, long fallback) {
        try {
            return c.attribute(a);
        } catch (UnsupportedOnBackendException e) {
            return fallback;
        }
    }

    /**
     * Launches {@link TestKernels#SLOW_FILL} on {@code s}: after about {@code duration} of device time it sets
     * all of {@code out} (I32) to {@code value}.
     */
    protected DeviceFuture<Void> slowFill(DeviceStream s, DeviceBuffer out, int value, Duration duration) {
        return s.enqueueLaunch(fn(s.context(), TestKernels.SLOW_FILL), LaunchConfig.of(1, 1), slowFillArguments(out, value, duration));
    }

    /** The arguments of {@link TestKernels#SLOW_FILL} for {@link #slowFill}, for launching it another way. */
    protected static Object[] slowFillArguments(DeviceBuffer out, int value, Duration duration) {
        long nanos = duration.toNanos();
        long khz = attributeOr(out.context(), DeviceAttribute.CLOCK_RATE_KHZ, 2_000_000);
        long cycles = nanos / 1_000 * khz / 1_000; // microseconds times thousands of ticks per second
        return new Object[] {out, out.count(), value, cycles, nanos};
    }

    /** Reads an I32/U32 buffer through {@code s} and waits. */
    protected static int[] readInts(DeviceStream s, DeviceBuffer b) {
        int[] out = new int[Math.toIntExact(b.count())];
        await(s.enqueueCopy(b, HostData.of(out)));
        return out;
    }

    protected static float[] readFloats(DeviceStream s, DeviceBuffer b) {
        float[] out = new float[Math.toIntExact(b.count())];
        await(s.enqueueCopy(b, HostData.of(out)));
        return out;
    }

    /** An I32 buffer on {@code c} holding {@code values}. */
    protected static DeviceBuffer intBuffer(DeviceContext c, int... values) {
        DeviceBuffer b = c.allocate(DType.I32, values.length);
        await(c.stream().enqueueCopy(HostData.of(values), b));
        return b;
    }

    protected static int[] filled(int n, int value) {
        int[] a = new int[n];
        Arrays.fill(a, value);
        return a;
    }

    protected static int[] iota(int n, int from) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = from + i;
        }
        return a;
    }

    /** Asserts that {@code s} still works: a fill and a copy enqueued on it complete with the right data. */
    protected static void assertStreamUsable(DeviceStream s) {
        DeviceContext c = s.context();
        try (DeviceBuffer b = c.allocate(DType.I32, 16)) {
            s.enqueueFill(b, 1234);
            int[] out = new int[16];
            await(s.enqueueCopy(b, HostData.of(out)));
            assertArrayEquals(filled(16, 1234), out, "the stream must stay usable");
        }
    }

    // ---------------------------------------------------------------- bad input

    /**
     * Runs {@code call}, which must throw {@code type} with a message that mentions every string of
     * {@code mentions} (case-insensitive): the argument, the value, the bound. Then checks that nothing was
     * enqueued on {@code s} (its next future's sequence follows the one before the call) and that {@code s} is
     * still usable.
     */
    protected static <E extends SluiceException> E assertRejected(Class<E> type, DeviceStream s, Executable call,
            String... mentions) {
        long before = s.enqueueMarker().sequence();
        E e = assertThrows(type, call);
        assertMentions(e, mentions);
        long after = s.enqueueMarker().sequence();
        assertEquals(before + 1, after, "a rejected call must enqueue nothing on " + s + " (" + e.getMessage() + ")");
        assertStreamUsable(s);
        return e;
    }

    /** Like {@link #assertRejected} for an {@link InvalidArgumentException}, also checking {@code argument()}. */
    protected static InvalidArgumentException assertInvalid(String argument, DeviceStream s, Executable call, String... mentions) {
        InvalidArgumentException e = assertRejected(InvalidArgumentException.class, s, call, mentions);
        assertEquals(argument, e.argument(), "the exception must name the argument: " + e.getMessage());
        assertTrue(e.getMessage().contains(argument), "the message must name the argument: " + e.getMessage());
        return e;
    }

    protected static void assertMentions(Throwable e, String... mentions) {
        String m = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
        for (String s : mentions) {
            assertTrue(m.contains(s.toLowerCase(Locale.ROOT)), "the message must mention '" + s + "': " + e.getMessage());
        }
    }

    protected static <T extends Throwable> T assertCause(Class<T> type, Throwable t) {
        return assertInstanceOf(type, unwrap(t), () -> "expected a " + type.getSimpleName() + " but got " + t);
    }
}
