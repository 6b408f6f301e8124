package dev.sluice.reactive;

import dev.sluice.SluiceProperties;
import java.util.List;
import java.util.Objects;
import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * Tells BlockHound (found through {@code META-INF/services} when {@code BlockHound.install()} runs) which
 * Sluice calls block, and which Sluice threads must not:
 *
 * <ul>
 * <li><b>Blocking:</b> the synchronous facade ({@link dev.sluice.SyncStream}: every method waits through
 * {@code awaitInterruptibly}; the context's own joins, {@code await}), {@code DeviceStream.synchronize} and {@code close}, {@code DeviceContext.synchronize},
 * {@code close} and {@code executionTime}, {@code DeviceBuffer.mapToHost}, {@code DeviceEvent.synchronize}.
 * Calling one on a Reactor non-blocking thread ({@code parallel}, {@code single}) is reported as a
 * {@code BlockingOperationError}, even when the call would have returned at once.
 * <li><b>Non-blocking:</b> the completion threads ({@code sluice-completion-*}), where every
 * {@link dev.sluice.DeviceFuture} completes and so where the signals of this module arrive: a blocking call
 * there stalls every completion of the context, and a wait for a future of the same context never returns.
 * The engine's own idle waits (its park between polls, the BLOCKING wait strategy) are allowed; what runs
 * inside a future's completion (user callbacks, Reactor operators) is not. Set the system property
 * {@code sluice.blockhound.completionThreads=false} to leave them out.
 * </ul>
 */
public final class SluiceBlockHoundIntegration implements BlockHoundIntegration {

    /** Prefix of the names of the contexts' completion threads. */
    public static final String COMPLETION_THREAD_PREFIX = "sluice-completion-";

    /**
     * Called by {@link java.util.ServiceLoader} when {@code BlockHound.install()} runs; pass an instance to
     * {@code BlockHound.install(...)} to apply it explicitly.
     */
    public SluiceBlockHoundIntegration() {
    }

    @Override
    public void applyTo(BlockHound.Builder builder) {
        Objects.requireNonNull(builder, "builder"); // else a NullPointerException from inside, naming nothing
        for (Method m : BLOCKING) {
            builder.markAsBlocking(m.className(), m.name(), m.descriptor());
        }
        if (!"false".equalsIgnoreCase(System.getProperty(SluiceProperties.BLOCKHOUND_COMPLETION_THREADS, "true"))) {
            builder.nonBlockingThreadPredicate(current -> current.or(t -> t.getName().startsWith(COMPLETION_THREAD_PREFIX)));
            for (Inside i : ON_COMPLETION_THREADS) {
                if (i.allowed()) {
                    builder.allowBlockingCallsInside(i.method().className(), i.method().name());
                } else {
                    builder.disallowBlockingCallsInside(i.method().className(), i.method().name());
                }
            }
        }
    }

    /**
     * A method this integration names to BlockHound, which finds it by these strings when it instruments the class: a
     * rename leaves the entry naming nothing, silently, so a test checks that each names a method there is.
     *
     * @param className  the class's binary name ({@code dev.sluice.DeviceContext})
     * @param name       the method's name
     * @param descriptor the method's JVM descriptor, for the blocking methods, which BlockHound matches by it too; empty
     *                   where any method of the name is meant
     */
    record Method(String className, String name, String descriptor) {
    }

    /** A method inside which blocking calls are allowed (the engine's own waits) or disallowed again (user code). */
    record Inside(Method method, boolean allowed) {

        static Inside allowed(String className, String name) {
            return new Inside(new Method(className, name, ""), true);
        }

        static Inside disallowed(String className, String name) {
            return new Inside(new Method(className, name, ""), false);
        }
    }

    /** The calls that block: the synchronous facade's waits, and the handles' synchronize, close and map calls. */
    static final List<Method> BLOCKING = List.of(
            new Method("dev.sluice.SyncStream", "await", "(Ljava/util/concurrent/Future;)Ljava/lang/Object;"),
            new Method("dev.sluice.SyncStream", "awaitInterruptibly", "(Ljava/util/concurrent/Future;)Ljava/lang/Object;"),
            new Method("dev.sluice.DeviceStream", "synchronize", "()V"),
            new Method("dev.sluice.DeviceStream", "close", "()V"),
            new Method("dev.sluice.DeviceContext", "synchronize", "()V"),
            new Method("dev.sluice.DeviceContext", "close", "()V"),
            new Method("dev.sluice.DeviceContext", "executionTime", "(ILdev/sluice/DeviceContext$TimedBody;)Ljava/time/Duration;"),
            new Method("dev.sluice.DeviceBuffer", "mapToHost", "()Ldev/sluice/HostBuffer;"),
            new Method("dev.sluice.DeviceEvent", "synchronize", "()V"));

    /**
     * On the completion threads: the engine's and the recorders' methods inside which blocking calls are allowed, or
     * disallowed again, in the order given to BlockHound. They name internal classes (not exported, so named as strings).
     */
    static final List<Inside> ON_COMPLETION_THREADS = List.of(
            // The engine parks between polls: that is its job. Completing a future runs other people's code.
            Inside.allowed("dev.sluice.engine.CompletionPoller", "run"),
            Inside.disallowed("dev.sluice.engine.Operation", "finish"),
            // A stream held behind a wait for the host is submitted under its lock by the thread that ended the wait;
            // an enqueue meanwhile waits for those few submissions (microseconds), never for the device.
            Inside.allowed("dev.sluice.engine.HoldingStream", "enqueueIfHolding"),
            // The same for a stream's enqueue lock: its holder submits to the driver (or seals a group of markers) and
            // lets go; a contended enqueue spins, then parks, for that. Two contexts' completion threads meet there when
            // a pipeline's lanes span devices. A wait for the device under the lock is still reported where it happens.
            Inside.allowed("dev.sluice.engine.StreamOrder", "lock"),
            Inside.allowed("dev.sluice.engine.HoldingStream", "hold"),
            // Repeated work's calls take turns (a RepeatedPlan subscribed from two threads at once): the one waiting waits
            // for the other's body and submission, never for the device.
            Inside.allowed("dev.sluice.engine.ReplayedWork", "awaitTurn"),
            // A traced context starts a new trace epoch every few seconds from whichever thread enqueues then: it records
            // a timing event on the tracer's own clock stream, which runs nothing else, and waits for it (at once).
            Inside.allowed("dev.sluice.observe.Tracer", "rebase"),
            Inside.disallowed("dev.sluice.engine.Operation", "fail"));
}
