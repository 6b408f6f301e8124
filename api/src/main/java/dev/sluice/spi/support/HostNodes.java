package dev.sluice.spi.support;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The host steps of one context's captured graphs, as the driver calls them: one native callback of the C type
 * {@code void (*)(void* userData)} (CUDA's {@code CUhostFn}, HIP's {@code hipHostFn_t}) for the whole process, and a
 * key per step, passed as its {@code userData}, that finds the step's {@link Runnable}.
 *
 * <p>Why keys and not one upcall per step: an upcall stub lives as long as its arena, and the driver may call a host
 * node until its executable graph is destroyed, which it defers past replays in flight; a key that finds nothing
 * costs nothing, a freed stub crashes the process.
 *
 * <p>For backend authors: the CUDA and HIP backends keep one per context; a stream registers each step it captures
 * with {@link #add}, passes {@link #callback(UpcallLinker)} and the key to the driver's capturable host-function call, and
 * removes its graph's keys with {@link #remove} when the graph is destroyed; {@link #removeAll()} when the context
 * closes. Thread-safe.
 */
public final class HostNodes {

    private static final System.Logger LOG = System.getLogger(HostNodes.class.getName());
    private static final Map<Long, Runnable> STEPS = new ConcurrentHashMap<>();
    /** Keys start at 1: a null {@code userData} never names a step. */
    private static final AtomicLong NEXT_KEY = new AtomicLong(1);
    private static volatile @Nullable MemorySegment callback;

    private final Set<Long> keys = ConcurrentHashMap.newKeySet();

    /** A context's host steps; none yet. */
    public HostNodes() {
    }

    /**
     * Makes an upcall stub: the backend's own call of {@link Linker#upcallStub}, which is restricted, so that native
     * access is needed by the backend's module only, as for its downcalls.
     */
    @FunctionalInterface
    public interface UpcallLinker {

        /** {@code Linker.nativeLinker().upcallStub(target, type, Arena.global())}, called once per process. */
        MemorySegment upcallStub(MethodHandle target, FunctionDescriptor type);
    }

    /**
     * The native callback, {@code void (*)(void* userData)}, linked by {@code linker} on first use and never freed. It
     * runs the step registered under {@code userData} on the calling (driver) thread; one that throws is logged, never
     * thrown into the driver (an exception may not cross an upcall); a key removed meanwhile runs nothing.
     */
    public static MemorySegment callback(UpcallLinker linker) {
        MemorySegment c = callback;
        if (c == null) {
            synchronized (HostNodes.class) {
                c = callback;
                if (c == null) {
                    MethodHandle target;
                    try {
                        target = MethodHandles.lookup().findStatic(HostNodes.class, "run",
                                MethodType.methodType(void.class, MemorySegment.class));
                    } catch (ReflectiveOperationException e) {
                        throw new IllegalStateException("internal: the host node callback cannot be found", e);
                    }
                    c = linker.upcallStub(target, FunctionDescriptor.ofVoid(ValueLayout.ADDRESS));
                    callback = c;
                }
            }
        }
        return c;
    }

    private static void run(MemorySegment userData) {
        Runnable step = STEPS.get(userData.address());
        if (step == null) {
            return;
        }
        try {
            step.run();
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.ERROR, "a host step of a graph threw; the public layer should have caught it", t);
        }
    }

    /** Registers {@code step} and returns its key, the {@code userData} to capture with {@link #callback(UpcallLinker)}. */
    public long add(Runnable step) {
        long key = NEXT_KEY.getAndIncrement();
        keys.add(key);
        STEPS.put(key, step);
        return key;
    }

    /** Forgets the steps of {@code stepKeys}: the graph that calls them is destroyed, or was never made. */
    public void remove(Iterable<Long> stepKeys) {
        for (Long k : stepKeys) {
            STEPS.remove(k);
            keys.remove(k);
        }
    }

    /** Forgets every step of this context: it is closing, and its graphs go with it. */
    public void removeAll() {
        for (Long k : keys) {
            STEPS.remove(k);
        }
        keys.clear();
    }
}
