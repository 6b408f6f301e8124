package dev.sluice.flink;

import dev.sluice.DeviceContext;
import dev.sluice.HostBufferPool;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * The device contexts of this JVM (a TaskManager), one per backend and device, shared by every subtask that uses the
 * device and closed when the last one lets go: a context per slot would multiply the device's context memory and
 * make the slots' work contend as separate processes' does.
 *
 * <p>Each reference is a {@link Reference} recorded under the user-code class loader of the job that took it, so that the
 * class loader's release hook can give back what a job's functions did not (a task that died without its
 * {@code close()}), and no other job's.
 */
final class SharedContexts {

    private static final System.Logger LOG = System.getLogger(SharedContexts.class.getName());

    private record Key(String backend, int device) {
    }

    private static final class Entry {
        final DeviceContext context;
        /** The context's own figures, from its opening on, which every subtask on it shows (ContextMetrics). */
        final ContextMetrics metrics;
        /**
         * The pinned staging buffers of every lane on the context, whichever subtask's: a restarted or rescaled
         * subtask's lanes reuse what an earlier one pinned. Closed with the context.
         */
        final HostBufferPool staging;
        int references;

        Entry(DeviceContext context) {
            this.context = context;
            this.metrics = new ContextMetrics(context);
            this.staging = HostBufferPool.of(context, HostBufferPool.DEFAULT_LIMIT_BYTES);
            // Removed with the context: a closed context drops its listeners.
            context.addListener(metrics);
        }
    }

    private static final Object LOCK = new Object();
    private static final Map<Key, Entry> OPEN = new HashMap<>();
    /** References not yet closed, by the class loader of the job that took them. */
    private static final Map<ClassLoader, Set<Reference>> HELD = new WeakHashMap<>();
    /** References the release hook gave back (for tests: a function's close() leaves it none). */
    private static int releasedByHook;

    private SharedContexts() {
    }

    /** A reference to the shared context of one device; {@link #close()} gives it back. */
    static final class Reference implements AutoCloseable {
        private final Key key;
        /** The entry it counts in: still this one after a faulted context was replaced by a new one. */
        private final Entry entry;
        private final ClassLoader owner;
        private boolean closed;

        private Reference(Key key, Entry entry, ClassLoader owner) {
            this.key = key;
            this.entry = entry;
            this.owner = owner;
        }

        DeviceContext context() {
            return entry.context;
        }

        /** The context's figures, shared by every reference to it. */
        ContextMetrics metrics() {
            return entry.metrics;
        }

        /** The pool of pinned staging buffers of every lane on the context. */
        HostBufferPool staging() {
            return entry.staging;
        }

        /** Gives the reference back; the last one closes the context (waiting for its work). Idempotent. */
        @Override
        public void close() {
            DeviceContext toClose = null;
            synchronized (LOCK) {
                if (closed) {
                    return;
                }
                closed = true;
                Set<Reference> of = HELD.get(owner);
                if (of != null) {
                    of.remove(this);
                    if (of.isEmpty()) {
                        HELD.remove(owner);
                    }
                }
                if (--entry.references == 0) {
                    OPEN.remove(key, entry); // unless a new context already took its place
                    toClose = entry.context;
                }
            }
            if (toClose != null) {
                // Outside the lock: closing waits for the device, and other devices' subtasks need not wait with it.
                LOG.log(System.Logger.Level.DEBUG, "sluice-flink: closing the shared context of " + name(key)
                        + ", its last subtask gone");
                entry.staging.close();
                toClose.close();
            }
        }
    }

    /** A reference to the shared context of {@code device} of {@code backend}, opened if none is open. */
    static Reference acquire(String backend, int device, ClassLoader owner) {
        Key key = new Key(backend, device);
        synchronized (LOCK) {
            Entry e = OPEN.get(key);
            // A faulted context is unusable for good: a restarted subtask gets a new one (on CUDA, where a sticky fault
            // poisons the process, opening it fails and names the fault); its old holders close the old one.
            if (e == null || e.context.isClosed() || e.context.isFaulted()) {
                e = new Entry(DeviceContext.open(backend, device));
                OPEN.put(key, e);
                LOG.log(System.Logger.Level.DEBUG, "sluice-flink: opened the shared context of " + name(key));
            }
            e.references++;
            Reference reference = new Reference(key, e, owner);
            HELD.computeIfAbsent(owner, o -> new LinkedHashSet<>()).add(reference);
            return reference;
        }
    }

    /**
     * Gives back every reference the job of {@code owner} still holds: the backstop of Flink's user-code class-loader
     * release hook, for a task that ended without closing its function.
     */
    static void releaseAll(ClassLoader owner) {
        List<Reference> left;
        synchronized (LOCK) {
            Set<Reference> of = HELD.get(owner);
            left = of == null ? List.of() : new ArrayList<>(of);
            releasedByHook += left.size();
        }
        if (!left.isEmpty()) {
            LOG.log(System.Logger.Level.WARNING, "sluice-flink: " + left.size()
                    + " device context reference(s) left open by a job whose class loader is released; closing them");
        }
        for (Reference l : left) {
            try {
                l.close();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "sluice-flink: closing a shared context failed", e);
            }
        }
    }

    /** Shared contexts open now (for tests: 0 once every job's functions have closed). */
    static int openCount() {
        synchronized (LOCK) {
            return OPEN.size();
        }
    }

    /** References {@link #releaseAll} gave back since this class was loaded. */
    static int releasedByHook() {
        synchronized (LOCK) {
            return releasedByHook;
        }
    }

    private static String name(Key key) {
        return key.backend() + ":" + key.device();
    }
}
