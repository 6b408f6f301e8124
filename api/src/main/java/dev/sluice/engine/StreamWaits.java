package dev.sluice.engine;

import dev.sluice.OperationKind;
import dev.sluice.spi.EventHandle;
import dev.sluice.spi.HostGate;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * One stream's waits and the operations that move no data: event records, the device's waits (for an event, another
 * stream's operation, a host stage), markers and host functions, each taking the stream's lock through its
 * {@link StreamEnqueuer} (which ends any recording of repeated work first: a graph describes none of them) and marking
 * its future as the stream's operations are marked; and the host's waits for the stream's work ({@link #synchronize},
 * and the drain of a closing context).
 */
public final class StreamWaits {

    private final StreamEnqueuer stream;
    private final ContextRuntime context;

    StreamWaits(StreamEnqueuer stream, ContextRuntime context) {
        this.stream = stream;
        this.context = context;
    }

    /** Records {@code event} (whose public side {@code keep} stays reachable until the record ran). */
    public <F extends Operation<?>> F record(F f, EventHandle event, Object keep) {
        stream.begin();
        try {
            stream.handle.record(event);
            stream.keptByGraph(keep);
            return stream.mark(f, OperationKind.RECORD, keep); // not destroyed by the leak detector before the record ran
        } catch (RuntimeException e) {
            throw stream.failed(e);
        } finally {
            stream.end();
        }
    }

    /** Makes later work of this stream wait for {@code event}'s last record. */
    public <F extends Operation<?>> F waitEvent(F f, EventHandle event, Object keep) {
        stream.begin();
        try {
            stream.core.sealLocked(); // this wait may hold the stream (on a held record): earlier work first gets its marker
            stream.handle.waitEvent(event);
            stream.keptByGraph(keep);
            return stream.mark(f, OperationKind.WAIT, keep); // not destroyed by the leak detector before the wait ran
        } catch (RuntimeException e) {
            throw stream.failed(e);
        } finally {
            stream.end();
        }
    }

    /** Makes later work of this stream wait, on the device, for {@code future}'s operation (of this backend). */
    public <F extends Operation<?>> F waitFor(F f, Operation<?> future) {
        if (future.core() != stream.core) {
            future.refuseWaitWhileRecorded("waitFor(future)");
            future.seal(); // its group's marker must exist before a device-side wait on it; before taking this lock
        }
        stream.begin();
        try {
            stream.waitMarkerLocked(future);
            return stream.mark(f, OperationKind.WAIT, null);
        } catch (RuntimeException e) {
            throw stream.failed(e);
        } finally {
            stream.end();
        }
    }

    /** Makes later work of this stream wait, on the host, for {@code stage}; its failure fails {@code f}. */
    public <F extends Operation<?>> F waitForStage(F f, CompletionStage<?> stage) {
        HostGate gate;
        stream.begin();
        try {
            if (stream.isCapturing()) {
                stream.handle.captureHostStep(stream.capture().hostSteps(context).hostWait(stage));
                return stream.mark(f, OperationKind.WAIT, null);
            }
            stream.core.sealLocked(); // earlier work must not wait for the host behind this gate to get its marker
            gate = stream.handle.enqueueHostGate();
            stream.mark(f, OperationKind.WAIT, null);
        } catch (RuntimeException e) {
            throw stream.failed(e);
        } finally {
            stream.end();
        }
        context.trackGate(gate, f);
        stage.whenComplete((v, e) -> {
            if (e != null) {
                f.presetFailure(e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
            }
            context.untrackGate(gate);
            gate.open();
        });
        return f;
    }

    /** A marker: completes when the work enqueued before it has finished; {@code kind} null reports nothing. */
    public <F extends Operation<?>> F marker(F f, @Nullable OperationKind kind) {
        stream.begin();
        try {
            return stream.mark(f, kind, null);
        } catch (RuntimeException e) {
            throw stream.failed(e);
        } finally {
            stream.end();
        }
    }

    /**
     * Runs {@code function} on a host thread once the work enqueued before it has finished; later work waits until it
     * returns. What it throws fails {@code f}.
     */
    public <F extends Operation<?>> F hostFunction(F f, Runnable function) {
        Operation<?> before;
        HostGate gate;
        stream.begin();
        try {
            if (stream.isCapturing()) {
                stream.handle.captureHostStep(stream.capture().hostSteps(context).hostFunction(function));
                return stream.mark(f, OperationKind.HOST, null);
            }
            before = stream.mark(new InternalOperation(), null, null);
            stream.core.sealLocked(); // earlier work must not wait for the host behind this gate to get its marker
            gate = stream.handle.enqueueHostFunctionGate();
            stream.mark(f, OperationKind.HOST, null);
        } catch (RuntimeException e) {
            throw stream.failed(e);
        } finally {
            stream.end();
        }
        before.whenCompleteAsync((v, e) -> {
            if (e == null) {
                try {
                    context.runHostFunction(function, f);
                } catch (Throwable t) {
                    f.presetFailure(t);
                }
            } else {
                f.presetFailure(e);
            }
            gate.open();
        }, context.hostExecutor());
        return f;
    }

    // ---------------------------------------------------------------- the host's waits for the stream

    /** Blocks until the work enqueued so far has finished and its futures have completed. */
    public void synchronize() {
        context.refuseBlocking("DeviceStream.synchronize");
        stream.checkNotClosed();
        Operation<?> upTo = Recording.submitBeforeWait(stream);
        context.checkUsable();
        stream.handle.synchronize();
        awaitFinished(upTo, Long.MAX_VALUE, true);
        context.checkUsable();
    }

    void awaitFinished(@Nullable Operation<?> upTo, long deadline, boolean interruptible) {
        if (upTo != null && stream.core.awaitCompleted(upTo.seq(), deadline, interruptible)) {
            upTo.awaitQuietly(); // completed by now, or about to be: its sequence has passed
        }
    }

    /** Waits, until {@code deadline}, for the work enqueued so far (the context is closing). */
    void drain(long deadline) {
        if (stream.isClosed()) {
            return;
        }
        Operation<?> upTo = stream.core.last();
        stream.handle.synchronize();
        awaitFinished(upTo, deadline, false);
    }
}
