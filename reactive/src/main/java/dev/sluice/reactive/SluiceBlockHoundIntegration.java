package dev.sluice.reactive;

import dev.sluice.SluiceProperties;
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
        builder.markAsBlocking("dev.sluice.SyncStream", "await", "(Ljava/util/concurrent/Future;)Ljava/lang/Object;");
        builder.markAsBlocking("dev.sluice.SyncStream", "awaitInterruptibly", "(Ljava/util/concurrent/Future;)Ljava/lang/Object;");
        builder.markAsBlocking("dev.sluice.DeviceStream", "synchronize", "()V");
        builder.markAsBlocking("dev.sluice.DeviceStream", "close", "()V");
        builder.markAsBlocking("dev.sluice.DeviceContext", "synchronize", "()V");
        builder.markAsBlocking("dev.sluice.DeviceContext", "close", "()V");
        builder.markAsBlocking("dev.sluice.DeviceContext", "executionTime",
                "(ILdev/sluice/DeviceContext$TimedBody;)Ljava/time/Duration;");
        builder.markAsBlocking("dev.sluice.DeviceBuffer", "mapToHost", "()Ldev/sluice/HostBuffer;");
        builder.markAsBlocking("dev.sluice.DeviceEvent", "synchronize", "()V");

        if (!"false".equalsIgnoreCase(System.getProperty(SluiceProperties.BLOCKHOUND_COMPLETION_THREADS, "true"))) {
            builder.nonBlockingThreadPredicate(current -> current.or(t -> t.getName().startsWith(COMPLETION_THREAD_PREFIX)));
            // The engine parks between polls: that is its job. Completing a future runs other people's code.
            builder.allowBlockingCallsInside("dev.sluice.engine.CompletionEngine", "run");
            builder.disallowBlockingCallsInside("dev.sluice.engine.Operation", "finish");
            // A stream held behind a wait for the host is submitted under its lock by the thread that ended the wait;
            // an enqueue meanwhile waits for those few submissions (microseconds), never for the device.
            builder.allowBlockingCallsInside("dev.sluice.engine.HoldingStream", "enqueueIfHolding");
            // The same for a stream's enqueue lock: its holder submits to the driver (or seals a group of markers) and
            // lets go; a contended enqueue spins, then parks, for that. Two contexts' completion threads meet there when
            // a pipeline's lanes span devices. A wait for the device under the lock is still reported where it happens.
            builder.allowBlockingCallsInside("dev.sluice.engine.StreamCore", "lock");
            builder.allowBlockingCallsInside("dev.sluice.engine.HoldingStream", "hold");
            // Repeated work's calls take turns (a RepeatedPlan subscribed from two threads at once): the one waiting waits
            // for the other's body and submission, never for the device.
            builder.allowBlockingCallsInside("dev.sluice.engine.ReplayedWork", "awaitTurn");
            // A traced context starts a new trace epoch every few seconds from whichever thread enqueues then: it records
            // a timing event on the tracer's own clock stream, which runs nothing else, and waits for it (at once).
            builder.allowBlockingCallsInside("dev.sluice.observe.Tracer", "rebase");
            builder.disallowBlockingCallsInside("dev.sluice.engine.Operation", "fail");
        }
    }
}
