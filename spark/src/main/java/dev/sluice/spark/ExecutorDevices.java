package dev.sluice.spark;

import dev.sluice.BackendUnavailableException;
import dev.sluice.DeviceContext;
import dev.sluice.SluiceProperties;
import dev.sluice.arrow.PinnedAllocationFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.jspecify.annotations.Nullable;

/**
 * The device contexts of this executor JVM, one per backend and device, shared by every task that uses the device and
 * by the executor plugin, and closed when the last holder lets go: a context per task would multiply the device's
 * context memory and the cost of opening it. With {@link SluiceSparkPlugin} the plugin holds one reference per device
 * from the executor's start to its end, so tasks never open or close a context; without it the first task on a device
 * opens its context and the last one running closes it.
 *
 * <p>Each device also has a root allocator of its pinned memory ({@link PinnedAllocationFactory}, whose pool keeps
 * freed pinned memory for the next task), from which each task takes a child allocator of its own. A context with a
 * sticky fault is never replaced: every task sent to its device fails naming it, which is what lets Spark's
 * {@code excludeOnFailure} take the executor out of service (on CUDA such a fault poisons the whole process anyway).
 */
final class ExecutorDevices {

    private static final System.Logger LOG = System.getLogger(ExecutorDevices.class.getName());

    /** The backend and device ordinal of one context. */
    record Key(String backend, int ordinal) {
        @Override
        public String toString() {
            return backend + ":" + ordinal;
        }
    }

    /** One open device: its context, pinned memory and figures, and how many hold it. */
    static final class Device {
        final Key key;
        final DeviceContext context;
        final PinnedAllocationFactory pinned;
        final RootAllocator allocator;
        final DeviceFigures figures;
        /** The GPU stages' pipelines kept between tasks on this device. */
        final StagePipelines pipelines = new StagePipelines();
        int references;

        Device(Key key, DeviceContext context) {
            this.key = key;
            this.context = context;
            this.figures = new DeviceFigures(context);
            context.addListener(figures); // removed with the context
            this.pinned = PinnedAllocationFactory.of(context);
            this.allocator = pinned.newRootAllocator(Long.MAX_VALUE);
        }

        /**
         * Closes the pipelines kept between tasks (waiting for their lanes), the allocator, its pinned pool and the
         * context; logs what the allocator still holds.
         */
        void close() {
            pipelines.close(TaskRun.RELEASE_WAIT_SECONDS);
            try {
                allocator.close();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "sluice-spark: the pinned allocator of " + key
                        + " still held memory when its context closed", e);
            }
            pinned.close();
            context.close();
        }
    }

    private static final Object LOCK = new Object();
    private static final Map<Key, Device> OPEN = new HashMap<>();
    /** The plugin's backend and devices while it runs; null without the plugin. */
    private static @Nullable String pluginBackend;
    private static @Nullable List<Integer> pluginOrdinals;

    private ExecutorDevices() {
    }

    /** A reference to one open device; {@link #close()} gives it back. */
    static final class Reference implements AutoCloseable {
        private final Device device;
        private boolean closed;

        private Reference(Device device) {
            this.device = device;
        }

        Device device() {
            return device;
        }

        /** Gives the reference back; the last one closes the device's context (waiting for its work). Idempotent. */
        @Override
        public void close() {
            Device toClose = null;
            synchronized (LOCK) {
                if (closed) {
                    return;
                }
                closed = true;
                if (--device.references == 0) {
                    OPEN.remove(device.key, device);
                    toClose = device;
                }
            }
            if (toClose != null) {
                // Outside the lock: closing waits for the device, and other devices' tasks need not wait with it.
                LOG.log(System.Logger.Level.DEBUG, "sluice-spark: closing the context of " + toClose.key);
                toClose.close();
            }
        }
    }

    /** A reference to the open device {@code key}, opening its context if none is open. */
    static Reference acquire(Key key) {
        synchronized (LOCK) {
            Device d = OPEN.get(key);
            if (d == null || d.context.isClosed()) {
                d = new Device(key, DeviceContext.open(key.backend(), key.ordinal()));
                OPEN.put(key, d);
                LOG.log(System.Logger.Level.DEBUG, "sluice-spark: opened the context of " + key);
            }
            d.references++;
            return new Reference(d);
        }
    }

    /** Records the plugin's backend and devices, which tasks then use; null clears them (the plugin's shutdown). */
    static void pluginDevices(@Nullable String backend, @Nullable List<Integer> ordinals) {
        synchronized (LOCK) {
            pluginBackend = backend;
            pluginOrdinals = ordinals == null ? null : List.copyOf(ordinals);
        }
    }

    /**
     * The backend a task uses: {@code requested} if not null, else the plugin's, else the one
     * {@link DeviceContext#open()} would take (the system property {@value SluiceProperties#API}, the environment
     * variable {@value SluiceProperties#API_ENVIRONMENT}, else the first backend with a device).
     */
    static String backend(@Nullable String requested) {
        if (requested != null) {
            return requested;
        }
        synchronized (LOCK) {
            if (pluginBackend != null) {
                return pluginBackend;
            }
        }
        return defaultBackend();
    }

    /** A backend's name as the backends spell it: {@code " CUDA "} is {@code cuda}. */
    static String backendName(String named) {
        return named.strip().toLowerCase(java.util.Locale.ROOT);
    }

    /** The backend {@link DeviceContext#open()} would take. */
    static String defaultBackend() {
        String named = System.getProperty(SluiceProperties.API);
        if (named == null || named.isBlank()) {
            named = System.getenv(SluiceProperties.API_ENVIRONMENT);
        }
        if (named != null && !named.isBlank()) {
            return backendName(named);
        }
        for (String name : DeviceContext.backendNames()) {
            if (DeviceContext.deviceCount(name) > 0) {
                return name;
            }
        }
        throw new BackendUnavailableException("no backend has a device: " + DeviceContext.detect());
    }

    /** The device ordinals tasks of {@code backend} spread over without a Spark resource: the plugin's, else all. */
    static List<Integer> ordinals(String backend) {
        synchronized (LOCK) {
            if (pluginOrdinals != null && backend.equals(pluginBackend)) {
                return pluginOrdinals;
            }
        }
        int n = DeviceContext.deviceCount(backend);
        if (n == 0) {
            throw new BackendUnavailableException("the " + backend + " backend has no device on this executor: "
                    + DeviceContext.detect());
        }
        List<Integer> all = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            all.add(i);
        }
        return all;
    }

    /** Devices open now (for tests and the plugin's shutdown check). */
    static int openCount() {
        synchronized (LOCK) {
            return OPEN.size();
        }
    }

    /** The references held to the open device {@code key}, 0 if it is not open (for tests). */
    static int references(Key key) {
        synchronized (LOCK) {
            Device d = OPEN.get(key);
            return d == null ? 0 : d.references;
        }
    }

    /** The open device {@code key}, or null (for tests). */
    static @Nullable Device open(Key key) {
        synchronized (LOCK) {
            return OPEN.get(key);
        }
    }
}
