package dev.sluice.engine;

import dev.sluice.ClosedResourceException;
import dev.sluice.ContextOptions;
import dev.sluice.DeviceException;
import dev.sluice.SluiceException;
import dev.sluice.SluiceProperties;
import dev.sluice.observe.Tracer;
import dev.sluice.spi.ContextHandle;
import dev.sluice.spi.DeviceMemory;
import dev.sluice.spi.HostGate;
import dev.sluice.spi.HostMemory;
import dev.sluice.spi.StreamHandle;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * The engine's half of a device context: the guards against blocking its completion thread, its streams and memory,
 * what it owns, and the close sequence, over {@link ContextState} (its fault state, options, completion engine and host
 * executor, which the parts below the streams read). The public context checks arguments and delegates here.
 *
 * <p><b>Fault.</b> The first failure the device reports (a sticky error from a call, a marker that failed) faults the
 * context for good: every later call is refused with a {@link DeviceException} naming it, pending futures fail, and
 * {@link #close()} frees what the context owns without waiting for the device.
 */
public final class ContextRuntime extends ContextState {

    /** What the engine tells the public side: its listeners and Flight Recorder events. */
    public interface Events {
        /** The context faulted with {@code cause} (once). */
        void faulted(Throwable cause);

        /** Device memory of {@code bytes} was allocated. */
        void allocated(long bytes);

        /** Device memory of {@code bytes} was freed. */
        void freed(long bytes);
    }

    private final Events events;
    /** Event records held on the host by this context's streams ({@link HoldingStream}). */
    private final HoldingStream.HeldRecords heldRecords = new HoldingStream.HeldRecords();
    private final @Nullable Tracer tracer;
    private final ContextResources resources;
    /** Claimed by the one close() that does the work; the others wait for {@link #closeDone}. */
    private final AtomicBoolean closeClaimed = new AtomicBoolean();
    private final CountDownLatch closeDone = new CountDownLatch(1);
    private @Nullable StreamEnqueuer defaultStream;

    /**
     * How long {@link #close()} waits for futures to complete once the device has finished their work: a dependent stage
     * stuck on the completion thread must not keep close() from returning. After it, the futures still pending fail.
     * 10 s; {@code -Dsluice.close.futuresMillis}, read when the context opens, a knob for tests.
     */
    private final long closeFuturesNanos = Long.getLong(SluiceProperties.Measurement.CLOSE_FUTURES_MILLIS, 10_000L) * 1_000_000L;

    /**
     * The engine of a context that owns {@code handle} from now on (its close closes it, also if this constructor fails).
     *
     * @param name       the public context's name, for messages
     * @param threadName what the names of its threads carry after their prefix
     */
    public ContextRuntime(String name, String threadName, String device, ContextHandle handle, ContextOptions options,
            Events events) {
        super(name, threadName, handle, options);
        this.events = events;
        this.resources = new ContextResources(this, handle);
        this.tracer = options.tracing() ? openTracer(handle, name + " " + handle.name(), device, options) : null;
    }

    private static Tracer openTracer(ContextHandle handle, String contextName, String device, ContextOptions options) {
        try {
            return new Tracer(handle, contextName, device, options.traceCapacity(), options.traceFile());
        } catch (RuntimeException e) {
            handle.close();
            throw e;
        }
    }

    /** Opens the default stream, whose public side is {@code owner}; once, before {@link #start()}. */
    public StreamEnqueuer openDefaultStream(PublicStream owner) {
        StreamEnqueuer s = new StreamEnqueuer(this, handle.defaultStream(), true, 0, owner);
        defaultStream = s;
        return s;
    }

    /** Starts the completion thread: the context is built. */
    public void start() {
        engine.start();
    }

    /** Opens a stream of this context over {@code stream}, whose public side is {@code owner}. */
    public StreamEnqueuer openStream(StreamHandle stream, int index, PublicStream owner) {
        StreamEnqueuer s = new StreamEnqueuer(this, stream, false, index, owner);
        resources.add(s);
        return s;
    }

    /** The streams and memory still open, one description each ({@link ContextResources#describeOpen}). */
    public List<String> openResources() {
        return resources.describeOpen();
    }

    // ---------------------------------------------------------------- what the engine's parts share

    @Nullable Tracer tracer() {
        return tracer;
    }

    /** The event records this context's streams hold on the host: an event held is not recorded on the device yet. */
    public HoldingStream.HeldRecords heldRecords() {
        return heldRecords;
    }

    /** The tracer, or null when the context traces nothing. */
    public @Nullable Tracer tracing() {
        return tracer;
    }

    // ---------------------------------------------------------------- memory

    /**
     * Allocates device memory at once (not in stream order), owned by the context and freed in its default stream's order.
     */
    public Allocation allocate(long bytes) {
        checkUsable();
        DeviceMemory memory = handle.allocate(bytes);
        Allocation a = new Allocation(this, memory, defaultStream());
        resources.add(a);
        events.allocated(bytes);
        return a;
    }

    /**
     * Device memory the context neither allocates nor frees (a module variable, which goes with its module): ordered and
     * claimed as its own, freed by nobody.
     */
    public Allocation variable(DeviceMemory memory) {
        return new Allocation(this, memory, defaultStream());
    }

    /** Allocates pinned host memory, owned by the context. */
    public HostAllocation allocateHost(long bytes) {
        checkUsable();
        return ownHost(handle.allocateHost(bytes));
    }

    /** Registers {@code segment} with the device (pins it in place), owned by the context until unregistered. */
    public HostAllocation registerHost(MemorySegment segment) {
        checkUsable();
        return ownHost(handle.registerHost(segment));
    }

    private HostAllocation ownHost(HostMemory m) {
        HostAllocation a = new HostAllocation(this, m);
        resources.add(a);
        return a;
    }

    /**
     * Owns a native object (an event's, a function's) that {@code release} releases: the context's close releases it
     * if its owner has not.
     */
    public OwnedHandle own(Runnable release) {
        OwnedHandle h = new OwnedHandle(this, release);
        resources.add(h);
        return h;
    }

    void track(Allocation a) {
        resources.add(a);
    }

    void retire(Allocation a, List<Operation<?>> pendingUses) {
        resources.retire(a, pendingUses);
    }

    void untrack(Allocation a) {
        resources.remove(a);
    }

    @Override
    void forget(ContextOwned o) {
        resources.remove(o);
    }

    void allocated(long bytes) {
        events.allocated(bytes);
    }

    void freed(long bytes) {
        events.freed(bytes);
    }

    /**
     * Frees device memory closed by its owner (or found leaked) in stream order: on its home stream, or the default stream
     * if that closed; after every pending use, those repeated work has recorded and not submitted yet included (the free
     * is enqueued once they are). Nothing while the context is closing or faulted: its close frees it.
     */
    public void release(Allocation a) {
        // After repeated work whose body recorded an operation on it has submitted or dropped that operation.
        a.uses.whenNoneRecorded(() -> releaseNow(a));
    }

    private void releaseNow(Allocation a) {
        if (closed || fault() != null) {
            return; // close() frees it (a faulted context's memory too)
        }
        StreamEnqueuer fallback = defaultStream();
        StreamEnqueuer s = a.home.isClosed() ? fallback : a.home;
        try {
            s.memory().freeInOrder(a);
        } catch (ClosedResourceException e) {
            if (s != fallback && !closed) {
                try {
                    fallback.memory().freeInOrder(a); // the home stream closed meanwhile
                } catch (SluiceException again) {
                    LOG.log(System.Logger.Level.DEBUG, "free of " + a.memory + " left to the context's close", again);
                }
            }
        } catch (SluiceException e) {
            LOG.log(System.Logger.Level.DEBUG, "free of " + a.memory + " left to the context's close", e);
        }
    }

    /** Releases host memory closed by its owner once every stream has finished with it. */
    public void release(HostAllocation a) {
        resources.release(a);
    }

    void trackGate(HostGate gate, Operation<?> future) {
        resources.trackGate(gate, future);
    }

    void untrackGate(HostGate gate) {
        resources.untrackGate(gate);
    }

    private StreamEnqueuer defaultStream() {
        StreamEnqueuer s = defaultStream;
        if (s == null) {
            throw new IllegalStateException("internal: " + name + " has no default stream yet");
        }
        return s;
    }

    // ---------------------------------------------------------------- fault and threads

    /** Refuses a call on a closed or faulted context. */
    public void checkUsable() {
        if (closed) {
            throw new ClosedResourceException(name);
        }
        Throwable f = fault();
        if (f != null) {
            throw rethrowableFault(f);
        }
    }

    private static SluiceException rethrowableFault(Throwable f) {
        if (f instanceof SluiceException se) {
            return new DeviceException("the context faulted earlier: " + se.getMessage(), se.errorName().orElse(null),
                    se.errorCode().isPresent() ? se.errorCode().getAsInt() : null, true, se);
        }
        return new DeviceException("the context faulted earlier: " + f, null, null, true, f);
    }

    @Override
    void faultHeard(Throwable cause) {
        events.faulted(cause);
    }

    /** Reports a sticky error a call returned: the completion thread faults the context with it, at once. */
    void report(DeviceException sticky) {
        engine.report(sticky);
    }

    /** Refuses a call that waits for this context's completion thread, on that thread. */
    public void refuseOnCompletionThread(String what) {
        if (engine.isCompletionThread() || StreamOrder.isCompletingOnThisThread()) {
            throw new IllegalStateException(what + " blocks, and would wait for the completion thread it was called on;"
                    + " use a *Async stage or another thread");
        }
    }

    /**
     * Refuses a blocking call where it could wait for ever: on any context's completion thread (whose futures it may
     * wait for), or in a host function of this context (the stream's later work waits until it returns).
     */
    public void refuseBlocking(String what) {
        refuseOnCompletionThread(what);
        Thread t = Thread.currentThread();
        if (t.getName().startsWith("sluice-completion-")) {
            throw new IllegalStateException(what + " blocks, and was called on " + t.getName() + ", a completion thread whose"
                    + " futures it may wait for; use a *Async stage or another thread");
        }
        if (inHostFunction()) {
            throw new IllegalStateException(what + " blocks, and was called in a host function of " + name + " ("
                    + t.getName() + "): the stream's later work waits until the host function returns;"
                    + " enqueue the work instead, or wait on another thread");
        }
    }

    /**
     * Blocks until the work enqueued so far on every stream of the context has finished and its futures have completed,
     * and the trace holds every span.
     */
    public void synchronize() {
        refuseBlocking("DeviceContext.synchronize");
        checkUsable();
        handle.synchronize();
        defaultStream().waits().synchronize();
        for (StreamEnqueuer s : resources.streams()) {
            if (!s.isClosed()) {
                s.waits().synchronize();
            }
        }
        Tracer t = tracer;
        if (t != null) {
            t.awaitResolved(); // trace() after synchronize() holds every span, as Trace promises
        }
        checkUsable();
    }

    // ---------------------------------------------------------------- close

    /**
     * Closes the context: the sequence {@code DeviceContext.close()} documents. Idempotent; a second caller waits for the
     * first to finish. {@code afterClose} runs once, last, on the closing thread.
     */
    public void close(Runnable afterClose) {
        if (closeDone.getCount() == 0) {
            return;
        }
        refuseBlocking("DeviceContext.close");
        if (!closeClaimed.compareAndSet(false, true)) {
            awaitCloseDone();
            return;
        }
        try {
            closeOnce();
            afterClose.run();
        } finally {
            closeDone.countDown();
            handshake.closed(name);
        }
    }

    private void awaitCloseDone() {
        boolean interrupted = false;
        while (true) {
            try {
                closeDone.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void closeOnce() {
        ClosedResourceException cause = new ClosedResourceException(name);
        closing.completeExceptionally(cause);
        // Work held on the host behind a wait that never ended must not run now: drop it, failing its futures. (With
        // HostWaits.GATE_ON_DEVICE it waits on the device, and opening the gates below lets it run.)
        StreamEnqueuer main = defaultStream();
        List<StreamEnqueuer> streams = resources.streams();
        long deadline = System.nanoTime() + closeFuturesNanos;
        // A host function's turn is no such wait: it ends by itself once the work before it has finished. Close waits
        // for it, and for what it held back, as for any work; again while one stream's function lets another's go on.
        boolean waited;
        do {
            waited = main.awaitHostFunctions(deadline);
            for (StreamEnqueuer s : streams) {
                waited |= s.awaitHostFunctions(deadline);
            }
        } while (waited && System.nanoTime() < deadline);
        main.dropHeld(cause);
        for (StreamEnqueuer s : streams) {
            s.dropHeld(cause);
        }
        resources.openGates(cause);
        if (fault() == null) {
            drainForClose(main, deadline);
            for (StreamEnqueuer s : streams) {
                drainForClose(s, deadline);
            }
        }
        closed = true; // from here every enqueue is refused (checked under its stream's lock)
        try {
            main.close(false, deadline, false); // waits for an enqueue in flight on it, then for its work
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "closing the default stream during close failed", e); // a fault the engine has not seen yet
        }
        LeftBehind left = new LeftBehind(name, handle);
        resources.releaseAll(fault() != null, deadline, left);
        engine.stop(cause, deadline - System.nanoTime());
        if (tracer != null) {
            try {
                tracer.close();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "closing the tracer failed", e);
            }
        }
        ExecutorService e = hostExecutorIfMade();
        if (e != null) {
            e.shutdown();
        }
        handshake.awaitReleases(name); // a free claimed on another thread before releaseAll reaches the backend before the native close
        left.seal(); // closes the native context now, or once other contexts' work on its memory is done or dropped
    }

    private static void drainForClose(StreamEnqueuer s, long deadline) {
        try {
            s.waits().drain(deadline);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "synchronize of " + s + " during close failed", e);
        }
    }
}
