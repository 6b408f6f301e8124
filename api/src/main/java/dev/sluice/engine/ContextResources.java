package dev.sluice.engine;

import dev.sluice.spi.ContextHandle;
import dev.sluice.spi.HostGate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a context owns and must release when it closes: its streams, the native objects of its events and
 * functions ({@link OwnedHandle}), device and host allocations, and the host gates still waiting for a stage.
 * Thread-safe; the context decides when things are released, this class how.
 *
 * <p>Only streams are held here as the public objects themselves (see {@link LeakDetector} for why streams are not
 * covered by it). For buffers, events and functions this holds what the public object owns, never the object: so the
 * object can become unreachable while open, and the {@link LeakDetector} release what it owned, which then leaves this
 * registry. What is still here when the context closes is released by {@link #releaseAll}, once.
 */
final class ContextResources {

    private static final System.Logger LOG = System.getLogger(ContextResources.class.getName());

    private final ContextRuntime context;
    private final ContextHandle handle;
    private final Set<ContextOwned> owned = ConcurrentHashMap.newKeySet();
    private final Map<HostGate, Operation<?>> openGates = new ConcurrentHashMap<>();
    /** Allocations whose free was enqueued while other contexts' work still used them ({@link #retire}). */
    private final Set<Allocation> retired = ConcurrentHashMap.newKeySet();

    ContextResources(ContextRuntime context, ContextHandle handle) {
        this.context = context;
        this.handle = handle;
    }

    void add(ContextOwned o) {
        owned.add(o);
    }

    /** Forgets {@code o}: released elsewhere. Whether it was still owned. */
    boolean remove(ContextOwned o) {
        return owned.remove(o);
    }

    /** The streams the context created, still open. */
    List<StreamEnqueuer> streams() {
        List<StreamEnqueuer> out = new ArrayList<>();
        for (ContextOwned o : owned) {
            if (o instanceof StreamEnqueuer s) {
                out.add(s);
            }
        }
        return out;
    }

    /**
     * The streams, device memory and host memory still owned and not closed by their owners, one description each (for
     * {@code DeviceContext.openResources()}). Closed memory whose free still waits for earlier work is left out.
     */
    List<String> describeOpen() {
        List<String> out = new ArrayList<>();
        for (ContextOwned o : owned) {
            switch (o) {
                case StreamEnqueuer s when !s.isClosed() -> out.add(s.toString());
                case Allocation a when !a.isClosed() -> out.add("device memory of " + a.memory.byteSize() + " bytes");
                case HostAllocation h when !h.isClosed() -> out.add((h.memory.registered() ? "registered" : "pinned")
                        + " host memory of " + h.memory.segment().byteSize() + " bytes");
                default -> { }
            }
        }
        return out;
    }

    /** A host gate waiting for a stage, with the future of its wait: failed and opened if the context closes first. */
    void trackGate(HostGate gate, Operation<?> future) {
        openGates.put(gate, future);
    }

    void untrackGate(HostGate gate) {
        openGates.remove(gate);
    }

    /** Fails the waits still pending on stages with {@code cause} and opens their gates. */
    void openGates(RuntimeException cause) {
        for (var e : openGates.entrySet()) {
            e.getValue().presetFailure(cause);
            e.getKey().open();
        }
        openGates.clear();
    }

    /**
     * Frees closed host memory once every copy using it has finished on the device (by the streams' completed sequences,
     * whatever became of the copies' futures) or been dropped by its context's close; if this context closes first, its
     * close frees it.
     */
    void release(HostAllocation a) {
        a.uses.whenAllFinished(() -> {
            // Whoever removes it frees it: this, or the context's close, which claims each piece by removing it too
            // and, before it closes the native context, waits for the releases begun here.
            context.handshake().beginRelease();
            try {
                if (!owned.remove(a)) {
                    return; // the context's close took it
                }
                a.free(handle);
            } catch (RuntimeException ex) {
                LOG.log(System.Logger.Level.WARNING, "freeing host memory failed", ex);
            } finally {
                context.handshake().endRelease();
            }
        });
    }

    /**
     * Remembers {@code a}, whose free is being enqueued while {@code pending} (the unfinished uses of other streams) may
     * include other contexts' work: if this context closes before that work is done, its close keeps the native context
     * open for it ({@link #releaseAll}). Forgets those it remembered whose other contexts' work has finished.
     */
    void retire(Allocation a, List<Operation<?>> pending) {
        if (!anyForeign(pending)) {
            return; // the usual case, one context: nothing to remember, nothing allocated
        }
        retired.removeIf(r -> !anyForeign(r.uses.pendingUses(null)));
        retired.add(a);
    }

    /** Whether a use in {@code uses} is by a stream of another context. */
    private boolean anyForeign(List<Operation<?>> uses) {
        for (Operation<?> use : uses) {
            StreamOrder s = use.core();
            if (s != null && s.context() != context) {
                return true;
            }
        }
        return false;
    }

    /**
     * Releases everything still owned, for the context's close, after its streams have drained: closes the streams
     * (waiting for their futures until {@code deadline}), events and functions, and frees the memory, device memory only
     * where the device did not fault. Memory that streams of other contexts still use at {@code deadline} (peer copies,
     * copies to or from shared pinned memory, even held on the host) is not freed: {@code left} keeps it, and the native
     * context, until that work is done or dropped.
     */
    void releaseAll(boolean faulted, long deadline, LeftBehind left) {
        List<ContextOwned> rest = new ArrayList<>();
        for (ContextOwned o : List.copyOf(owned)) {
            if (owned.remove(o)) { // claimed here, not by a release running on another thread
                rest.add(o);
            }
        }
        for (ContextOwned o : rest) {
            if (o instanceof StreamEnqueuer s) {
                try {
                    s.close(true, deadline, false);
                } catch (RuntimeException e) {
                    LOG.log(System.Logger.Level.DEBUG, "closing " + s + " during close failed", e);
                }
            }
        }
        for (ContextOwned o : rest) {
            try {
                switch (o) {
                    case StreamEnqueuer s -> { }
                    case OwnedHandle h -> h.closeWithContext();
                    case Allocation a -> {
                        a.closed.set(true);
                        List<Operation<?>> busy = foreignUsesAfter(a.uses, deadline);
                        if (!busy.isEmpty()) {
                            left.keep(a.memory.toString(), busy, faulted ? null : () -> handle.free(a.memory));
                        } else if (!faulted) {
                            handle.free(a.memory);
                        }
                    }
                    case HostAllocation h -> {
                        h.closed.set(true);
                        List<Operation<?>> busy = foreignUsesAfter(h.uses, deadline);
                        if (!busy.isEmpty()) {
                            left.keep(h.memory.toString(), busy, () -> h.free(handle));
                        } else {
                            h.free(handle);
                        }
                    }
                    default -> { }
                }
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "releasing " + o + " during close failed", e);
            }
        }
        // Memory whose free was enqueued (maybe held on the host, and dropped by this close) while other contexts' work
        // still used it: freeing the native context would free it under that work.
        for (Allocation a : retired) {
            if (!rest.contains(a)) {
                List<Operation<?>> busy = foreignUsesAfter(a.uses, deadline);
                if (!busy.isEmpty()) {
                    left.keep(a.memory.toString(), busy, null);
                }
            }
        }
        retired.clear();
    }

    /** The uses in {@code uses} by streams of other contexts. */
    private List<Operation<?>> foreign(List<Operation<?>> uses) {
        List<Operation<?>> out = new ArrayList<>(0);
        for (Operation<?> use : uses) {
            StreamOrder s = use.core();
            if (s != null && s.context() != context) {
                out.add(use);
            }
        }
        return out;
    }

    /**
     * Waits until streams of other contexts (peer copies of device memory, copies to and from shared pinned memory) have
     * finished with the memory {@code uses} tracks, or {@code deadline} passed; returns their operations still
     * unfinished then, or in a context that faulted (whose held work may still be submitted).
     */
    private List<Operation<?>> foreignUsesAfter(UseTracker uses, long deadline) {
        List<Operation<?>> busy = new ArrayList<>(0);
        for (Operation<?> use : foreign(uses.pendingUses(null))) {
            if (!use.core().awaitCompleted(use.seq(), deadline, false)) {
                busy.add(use);
            }
        }
        return busy;
    }
}
