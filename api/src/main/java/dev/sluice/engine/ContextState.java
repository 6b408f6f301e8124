package dev.sluice.engine;

import dev.sluice.ContextOptions;
import dev.sluice.spi.ContextHandle;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.jspecify.annotations.Nullable;

/**
 * What a context's streams, memory, handles and graphs read of it: its backend context and options, its completion
 * engine, its fault and closed state, its close handshake and its host executor. {@link ContextRuntime} extends it with
 * what the context owns, its streams and its close sequence; the parts below it (the stream's order, the completion
 * thread, the operations, memory, owned handles and graph host steps) name only this class, so that they do not depend
 * on the context's streams, which depend on them. Its methods are final and its fields its own: a read through it costs
 * what a read of the context's field did.
 */
abstract class ContextState {

    /** The public context's logger: a fault is the context's news, under the name users configure. */
    static final System.Logger LOG = System.getLogger("dev.sluice.DeviceContext");
    private static final ThreadLocal<ContextState> HOST_FUNCTION_OF = new ThreadLocal<>();
    /** The future of the stream's host function the calling thread runs, where it runs one (not a graph's host step). */
    private static final ThreadLocal<Operation<?>> HOST_FUNCTION_FUTURE = new ThreadLocal<>();

    final String name;
    private final String threadName;
    final ContextHandle handle;
    final ContextOptions options;
    final CompletionPoller engine;
    /** What this context's close and other threads wait for in each other (see {@link CloseHandshake}). */
    final CloseHandshake handshake = new CloseHandshake();
    /** Fails when the close begins: releases the host waits of graphs, which block a driver thread. */
    final CompletableFuture<Void> closing = new CompletableFuture<>();
    /** The contexts this one has enabled peer access to: which peer copies go directly (see the trace's kinds). */
    private final Set<ContextState> peersEnabled = ConcurrentHashMap.newKeySet();
    private volatile @Nullable ExecutorService hostExecutor;
    private volatile @Nullable Throwable fault;
    /** Set by the close once it refuses work ({@link ContextRuntime#close}). */
    volatile boolean closed;

    ContextState(String name, String threadName, ContextHandle handle, ContextOptions options) {
        this.name = name;
        this.threadName = threadName;
        this.handle = handle;
        this.options = options;
        this.engine = new CompletionPoller(this, options, threadName);
    }

    final CompletionPoller engine() {
        return engine;
    }

    final CloseHandshake handshake() {
        return handshake;
    }

    final ContextHandle handle() {
        return handle;
    }

    final ContextOptions options() {
        return options;
    }

    final CompletableFuture<Void> closing() {
        return closing;
    }

    /** Notes that this context has enabled peer access to {@code peer}: peer copies between them go directly. */
    public final void peerEnabled(ContextState peer) {
        peersEnabled.add(peer);
    }

    /** Whether this context has enabled peer access to {@code peer}, or {@code peer} to this one. */
    public final boolean peerAccessEnabled(ContextState peer) {
        return peersEnabled.contains(peer) || peer.peersEnabled.contains(this);
    }

    /** The fault, or null. */
    public final @Nullable Throwable fault() {
        return fault;
    }

    /** Faults the context with {@code cause}, once; its listeners hear of it ({@link #faultHeard}). */
    final void faulted(Throwable cause) {
        if (fault == null) {
            fault = cause;
            LOG.log(System.Logger.Level.WARNING, name + " faulted: " + cause.getMessage());
            faultHeard(cause);
        }
    }

    /** Tells the public side of the fault {@link #faulted} just set; once. */
    abstract void faultHeard(Throwable cause);

    /** Forgets {@code o}, released elsewhere: the context's close no longer releases it. */
    abstract void forget(ContextOwned o);

    /** Whether the close has begun refusing work. */
    public final boolean isClosed() {
        return closed;
    }

    /** Whether the calling thread is this context's completion thread. */
    public final boolean isCompletionThread() {
        return engine.isCompletionThread();
    }

    /** Runs a host function of this context's streams, marked so that blocking calls in it are refused. */
    final void runHostFunction(Runnable function) {
        HOST_FUNCTION_OF.set(this);
        try {
            function.run();
        } finally {
            HOST_FUNCTION_OF.remove();
        }
    }

    /**
     * Runs the host function whose future is {@code future}, enqueued on a stream, marked so that blocking calls in it
     * are refused, and waits for that stream's later work with them.
     */
    final void runHostFunction(Runnable function, Operation<?> future) {
        HOST_FUNCTION_FUTURE.set(future);
        try {
            runHostFunction(function);
        } finally {
            HOST_FUNCTION_FUTURE.remove();
        }
    }

    /** The future of the stream's host function the calling thread runs, or null. */
    static @org.jspecify.annotations.Nullable Operation<?> runningHostFunction() {
        return HOST_FUNCTION_FUTURE.get();
    }

    /** Whether the calling thread runs a host function of this context ({@link #runHostFunction}). */
    final boolean inHostFunction() {
        return HOST_FUNCTION_OF.get() == this;
    }

    /** The executor of host functions: a virtual thread each, made on first use. */
    final ExecutorService hostExecutor() {
        ExecutorService e = hostExecutor;
        if (e == null) {
            synchronized (this) {
                e = hostExecutor;
                if (e == null) {
                    e = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("sluice-host-" + threadName + "-", 0).factory());
                    hostExecutor = e;
                }
            }
        }
        return e;
    }

    /** The executor of host functions if one was made, for the close to shut down. */
    final @Nullable ExecutorService hostExecutorIfMade() {
        return hostExecutor;
    }

    @Override
    public String toString() {
        return name;
    }
}
