package dev.sluice;

import dev.sluice.engine.ContextRuntime;
import dev.sluice.observe.JfrEvents;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * A context's {@link DeviceListener}s and its Flight Recorder events: what {@link DeviceContext#addListener} registers
 * and what the hook in {@code DeviceStream.mark} calls.
 *
 * <p>The hook's cost when nobody observes is one volatile read of {@link DeviceContext#observing}, which is this object
 * while a listener is registered or a recording enables {@code dev.sluice.Operation}, and null otherwise. The recording's
 * state reaches every open context through {@link JfrEvents}, which listens to the Flight Recorder.
 */
final class Observers implements ContextRuntime.Events {

    private static final System.Logger LOG = System.getLogger(Observers.class.getName());
    static final DeviceListener[] NONE = {};
    /** The open contexts, for {@link JfrEvents} to switch their operation events on and off; before {@link #JFR}. */
    static final Set<Observers> OPEN = ConcurrentHashMap.newKeySet();
    /**
     * Whether Flight Recorder events are made: the JDK has {@code jdk.jfr} (without it no JFR class is loaded) and
     * {@link JfrEvents} could listen to the recorder.
     */
    static final boolean JFR = jfrUsable();

    private static boolean jfrUsable() {
        if (ModuleLayer.boot().findModule("jdk.jfr").isEmpty()) {
            return false;
        }
        try {
            JfrEvents.listen(on -> OPEN.forEach(o -> o.jfrOperations(on)));
            return true;
        } catch (RuntimeException | LinkageError e) {
            // A JVM without a usable recorder: contexts must still open, without events.
            LOG.log(System.Logger.Level.DEBUG, "Flight Recorder events off: the recorder cannot be listened to", e);
            return false;
        }
    }

    private final DeviceContext context;
    /** Copied on write: the hook reads it without a lock. */
    private volatile DeviceListener[] listeners = NONE;
    private volatile boolean jfrOperations;

    Observers(DeviceContext context) {
        this.context = context;
    }

    // ---------------------------------------------------------------- registration

    void opened() {
        OPEN.add(this);
        if (JFR) {
            jfrOperations = JfrEvents.operationsEnabled();
            publish();
            JfrEvents.contextOpened(context, context.backendName(), context.id(), context.name());
        }
    }

    DeviceListener.Registration add(DeviceListener listener) {
        synchronized (this) {
            DeviceListener[] old = listeners;
            DeviceListener[] n = Arrays.copyOf(old, old.length + 1);
            n[old.length] = listener;
            listeners = n;
            publish();
        }
        return new DeviceListener.Registration() {
            private boolean removed;

            @Override
            public void close() {
                synchronized (Observers.this) {
                    if (removed) {
                        return;
                    }
                    removed = true;
                    remove(listener);
                }
            }
        };
    }

    /** Called by {@link JfrEvents} when a recording starts or stops. */
    void jfrOperations(boolean on) {
        synchronized (this) {
            jfrOperations = on;
            publish();
        }
    }

    private synchronized void publish() {
        context.observing = listeners.length > 0 || jfrOperations ? this : null;
    }

    // ---------------------------------------------------------------- operations

    /** An operation's Flight Recorder event, begun at its enqueue, and its stream's label. */
    record JfrOperation(JfrEvents.Started event, @Nullable String label) {
    }

    /**
     * Reports an operation just handed to the backend (under {@code stream}'s lock, before its future is marked) and fills
     * {@code into}, its future, with what it reports when the engine completes it ({@link #completed}). The hook's whole cost
     * on the enqueuing thread is the listeners' calls, these stores and one clock read; the engine reads the clock once
     * per pass for all the futures it completes.
     *
     * @param traceKind its {@link TraceSpan} kind: {@code "kernel <name>"} for a launch, the kind's trace name otherwise
     */
    void enqueued(DeviceStream stream, OperationKind kind, String traceKind, long bytes, @Nullable String label,
            DeviceFuture.Observed<?> into) {
        DeviceListener[] ls = listeners;
        for (DeviceListener l : ls) {
            try {
                l.operationEnqueued(stream, kind, bytes);
            } catch (Throwable t) {
                threw(context, l, "an enqueue", t);
            }
        }
        into.listeners = ls;
        into.kind = kind;
        into.traceKind = traceKind;
        into.bytes = bytes;
        into.jfr = jfrOperations && JFR ? new JfrOperation(JfrEvents.beginOperation(), label) : null;
        into.startNanos = System.nanoTime();
    }

    /**
     * Tells an observed operation's listeners, and its Flight Recorder event, that it has finished or failed. The
     * completion thread only, once per future, just before the future completes.
     *
     * @param nowNanos when the engine saw the operation done (one clock read for every future of its pass)
     */
    static void completed(DeviceFuture.Observed<?> f, @Nullable Throwable cause, long nowNanos) {
        DeviceStream stream = f.stream();
        long latency = Math.max(0, nowNanos - f.startNanos);
        for (DeviceListener l : f.listeners) {
            try {
                l.operationCompleted(stream, f.kind, f.bytes, latency, cause);
            } catch (Throwable t) {
                threw(stream == null ? null : stream.context(), l, "a completion", t);
            }
        }
        JfrOperation jfr = f.jfr;
        if (jfr != null && stream != null) {
            JfrEvents.endOperation(jfr.event(), stream.context(), stream.name(), f.traceKind, jfr.label(), f.bytes, cause);
        }
    }

    // ---------------------------------------------------------------- memory, kernels, faults, close

    @Override
    public void allocated(long bytes) {
        for (DeviceListener l : listeners) {
            try {
                l.memoryAllocated(context, bytes);
            } catch (Throwable t) {
                threw(context, l, "an allocation", t);
            }
        }
        if (JFR) {
            JfrEvents.allocated(context, bytes);
        }
    }

    @Override
    public void freed(long bytes) {
        for (DeviceListener l : listeners) {
            try {
                l.memoryFreed(context, bytes);
            } catch (Throwable t) {
                threw(context, l, "a free", t);
            }
        }
        if (JFR) {
            JfrEvents.freed(context, bytes);
        }
    }

    /** A token for {@link #compiled}: the started JFR event, if any. */
    JfrEvents.@Nullable Started beginCompile() {
        return JFR ? JfrEvents.beginCompilation() : null;
    }

    void compiled(Kernel kernel, long startNanos, JfrEvents.@Nullable Started token, @Nullable Throwable failure) {
        long nanos = System.nanoTime() - startNanos;
        for (DeviceListener l : listeners) {
            try {
                l.kernelCompiled(context, kernel.name(), nanos, failure);
            } catch (Throwable t) {
                threw(context, l, "a compilation", t);
            }
        }
        if (token != null) {
            JfrEvents.endCompilation(token, context, kernel.name(), failure);
        }
    }

    @Override
    public void faulted(Throwable fault) {
        for (DeviceListener l : listeners) {
            try {
                l.faulted(context, fault);
            } catch (Throwable t) {
                threw(context, l, "a fault", t);
            }
        }
        if (JFR) {
            JfrEvents.faulted(context, fault);
        }
    }

    /** {@code stream} was closed by its {@link DeviceStream#close()} (once per stream); on the closing thread. */
    void streamClosed(DeviceStream stream) {
        for (DeviceListener l : listeners) {
            try {
                l.streamClosed(stream);
            } catch (Throwable t) {
                threw(context, l, "a stream's close", t);
            }
        }
    }

    void closed() {
        OPEN.remove(this);
        for (DeviceListener l : listeners) {
            try {
                l.closed(context);
            } catch (Throwable t) {
                threw(context, l, "close", t);
            }
        }
        if (JFR) {
            JfrEvents.contextClosed(context, context.isFaulted());
        }
        synchronized (this) {
            listeners = NONE;
            jfrOperations = false;
            publish();
        }
    }

    // ---------------------------------------------------------------- what a listener throws

    /**
     * What a listener's {@code t} does: it is logged and dropped, whatever it is, so that no listener can keep the
     * completion thread from completing the context's other futures, nor an enqueue from returning its future. A
     * {@link VirtualMachineError} (an {@link OutOfMemoryError}, a {@link StackOverflowError}) is logged at
     * {@code ERROR} and also removes the listener from {@code context}, once: a listener that could not run is not
     * called for later operations (those enqueued before may still call it). The context itself is not faulted: its
     * device is as healthy as before, and monitoring must not take compute down. Never throws.
     */
    private static void threw(@Nullable DeviceContext context, DeviceListener l, String on, Throwable t) {
        try {
            boolean vm = t instanceof VirtualMachineError;
            boolean removed = vm && context != null && context.observers.remove(l);
            if (vm && !removed) {
                return; // removed already, for an earlier error: said once
            }
            LOG.log(vm ? System.Logger.Level.ERROR : System.Logger.Level.WARNING, "listener " + l + " threw on " + on
                    + (vm ? "; removed from " + context + ", whose operations go on" : "; ignored"), t);
        } catch (Throwable again) {
            // Out of memory again while saying so, say: nothing here may stop the thread that called the listener.
        }
    }

    /** Removes {@code l} (every registration of it); true for the call that removed it. */
    private synchronized boolean remove(DeviceListener l) {
        DeviceListener[] old = listeners;
        DeviceListener[] kept = Arrays.stream(old).filter(x -> x != l).toArray(DeviceListener[]::new);
        if (kept.length == old.length) {
            return false;
        }
        listeners = kept;
        publish();
        return true;
    }
}
