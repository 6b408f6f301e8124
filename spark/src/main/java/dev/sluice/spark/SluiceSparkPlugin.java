package dev.sluice.spark;

import com.codahale.metrics.MetricRegistry;
import dev.sluice.DeviceContext;
import dev.sluice.InvalidArgumentException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.plugin.DriverPlugin;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.PluginContext;
import org.apache.spark.api.plugin.SparkPlugin;
import org.apache.spark.resource.ResourceInformation;
import org.jspecify.annotations.Nullable;

/**
 * Sluice's Spark plugin: {@code --conf spark.plugins=dev.sluice.spark.SluiceSparkPlugin}. It has no driver part; its
 * executor part, when the executor starts, opens one device context per device the executor was given (the addresses
 * of Spark's resource {@code gpu}, {@code PluginContext.resources().get("gpu")}, read as the backend's device
 * ordinals; without that resource the ordinals of {@value #DEVICES}, else every device of the backend), holds them for
 * the executor's life so that no task opens or closes a context, registers their figures in the plugin's metric
 * registry (see {@link DeviceFigures} for the names), and closes them all in {@code shutdown()}, after their work.
 *
 * <p>Settings, read from the Spark configuration:
 * <ul>
 * <li>{@value #API}: the backend ({@code cuda}, {@code hip}, {@code cpu}); by default the one
 * {@link dev.sluice.DeviceContext#open()} takes (the system property {@code sluice.api}, else the first backend with a
 * device); a name of no backend fails the executor's start with an {@link InvalidArgumentException} naming the setting.
 * <li>{@value #DEVICES}: the device ordinals to open where Spark gives the executor no {@code gpu} resource, comma
 * separated ({@code 0,1}); by default every device of the backend. An entry that is no ordinal, an ordinal listed
 * twice (here or among the {@code gpu} resource's addresses), or one past the backend's devices, fails the executor's
 * start naming the setting (or the resource) and the value, with no context left open.
 * <li>{@value #STAGES_KEPT}: how many GPU stages keep their lanes on a device between their tasks, 0 to
 * {@value #MAX_STAGES_KEPT}; 1 by default (the stage that ran last on the device: another stage's first task there
 * releases them). More lets stages that alternate on an executor (two GPU stages of each micro-batch) reuse their lanes,
 * built graphs and staging, for the device and pinned memory their idle lanes hold while other stages run; 0 releases
 * every task's lanes at its end. Anything else fails the executor's start naming the setting and the value.
 * </ul>
 *
 * <p>The stages ({@link GpuPartitionStage}, {@link GpuArrowStage}) use the plugin's contexts where it runs, and open
 * their own (one per device and executor, closed by the last task on it) where it does not.
 */
public final class SluiceSparkPlugin implements SparkPlugin {

    /** The Spark setting naming the backend. */
    public static final String API = "spark.sluice.api";
    /** The Spark setting listing the device ordinals to open where the executor has no {@code gpu} resource. */
    public static final String DEVICES = "spark.sluice.devices";
    /** The Spark setting of how many GPU stages keep their lanes on a device between their tasks (default 1). */
    public static final String STAGES_KEPT = "spark.sluice.stagesKept";
    /** The most {@value #STAGES_KEPT} takes. */
    public static final int MAX_STAGES_KEPT = 16;
    /** The Spark resource whose addresses are the executor's devices (and, per task, the task's device). */
    public static final String RESOURCE = "gpu";

    /** The plugin; Spark instantiates it by its class name. */
    public SluiceSparkPlugin() {
    }

    /** None: the plugin has nothing to do on the driver. */
    @Override
    public @Nullable DriverPlugin driverPlugin() {
        return null;
    }

    /** The executor part: a new {@link ExecutorPlugin} for each executor. */
    @Override
    public ExecutorPlugin executorPlugin() {
        return new Executor();
    }

    /** Opens the executor's devices in {@code init}, closes them in {@code shutdown}. */
    static final class Executor implements ExecutorPlugin {
        private final List<ExecutorDevices.Reference> held = new ArrayList<>();
        private @Nullable MetricRegistry registry;
        private final List<String> prefixes = new ArrayList<>();
        private boolean shut;
        private boolean initialized;

        /**
         * Opens the executor's devices.
         *
         * @throws InvalidArgumentException naming {@code ctx} if null, or a setting with a bad value
         * @throws IllegalStateException    if called a second time, or after {@link #shutdown()}: what it opened then
         *                                  would be left open, since the shutdown has been (or will be) done once
         */
        @Override
        public void init(PluginContext ctx, Map<String, String> extraConf) {
            if (ctx == null) {
                throw new InvalidArgumentException("ctx", "must not be null");
            }
            synchronized (this) {
                if (shut || initialized) {
                    throw new IllegalStateException("sluice-spark: the executor plugin " + (shut ? "was shut down"
                            : "was initialized already") + "; Spark makes a new one per executor");
                }
                initialized = true;
            }
            String backend = ExecutorDevices.backend(backend(ctx.conf().get(API, null)));
            List<Integer> ordinals = ordinals(ctx.resources().get(RESOURCE), ctx.conf().get(DEVICES, null), backend);
            int stagesKept = stagesKept(ctx.conf().get(STAGES_KEPT, null));
            registry = ctx.metricRegistry();
            try {
                for (int ordinal : ordinals) {
                    ExecutorDevices.Reference r = ExecutorDevices.acquire(new ExecutorDevices.Key(backend, ordinal));
                    synchronized (this) {
                        held.add(r);
                    }
                    r.device().pipelines.stagesKept(stagesKept);
                    String prefix = MetricRegistry.name("device", backend + "-" + ordinal);
                    r.device().figures.register(registry, prefix);
                    prefixes.add(prefix);
                }
            } catch (RuntimeException e) {
                shutdown(); // what opened before the failure
                throw e;
            }
            ExecutorDevices.pluginDevices(backend, ordinals);
            System.getLogger(SluiceSparkPlugin.class.getName()).log(System.Logger.Level.DEBUG, "sluice-spark: executor "
                    + ctx.executorID() + " opened " + backend + " device(s) " + ordinals);
        }

        /** Closes every context the plugin opened, after its work; idempotent. */
        @Override
        public void shutdown() {
            List<ExecutorDevices.Reference> toClose;
            synchronized (this) {
                if (shut) {
                    return;
                }
                shut = true;
                toClose = List.copyOf(held);
                held.clear();
            }
            ExecutorDevices.pluginDevices(null, null);
            MetricRegistry r = registry;
            if (r != null) {
                prefixes.forEach(p -> DeviceFigures.unregister(r, p));
            }
            for (ExecutorDevices.Reference ref : toClose) {
                try {
                    ref.close();
                } catch (RuntimeException e) {
                    System.getLogger(SluiceSparkPlugin.class.getName()).log(System.Logger.Level.WARNING,
                            "sluice-spark: closing a device context failed", e);
                }
            }
        }
    }

    /**
     * The backend the setting {@value #API} names, in lower case; null where it is unset or blank.
     *
     * @throws InvalidArgumentException naming {@value #API} where it names no backend Sluice knows
     */
    static @Nullable String backend(@Nullable String api) {
        if (api == null || api.isBlank()) {
            return null;
        }
        String name = ExecutorDevices.backendName(api);
        List<String> known = dev.sluice.DeviceContext.backendNames();
        if (!known.contains(name)) {
            throw new InvalidArgumentException(API, "value \"" + api + "\" names no backend; the backends are " + known);
        }
        return name;
    }

    /**
     * The setting {@value #STAGES_KEPT} as a count; 1 where it is unset or blank.
     *
     * @throws InvalidArgumentException naming {@value #STAGES_KEPT} where it is no whole number from 0 to
     *                                  {@value #MAX_STAGES_KEPT}
     */
    static int stagesKept(@Nullable String value) {
        if (value == null || value.isBlank()) {
            return 1;
        }
        try {
            int n = Integer.parseInt(value.strip());
            if (n >= 0 && n <= MAX_STAGES_KEPT) {
                return n;
            }
        } catch (NumberFormatException notANumber) {
            // reported below
        }
        throw new InvalidArgumentException(STAGES_KEPT, "value \"" + value + "\" is not a whole number from 0 to "
                + MAX_STAGES_KEPT);
    }

    /**
     * The device ordinals of an executor: {@code gpu}'s addresses, else {@code devices} (comma separated), else every
     * device of {@code backend}.
     *
     * @throws InvalidArgumentException naming the resource or setting where an address is not a device ordinal, names
     *                                  a device twice, or one past the backend's devices
     */
    static List<Integer> ordinals(@Nullable ResourceInformation gpu, @Nullable String devices, String backend) {
        List<Integer> out = new ArrayList<>();
        String where;
        String listed;
        if (gpu != null && gpu.addresses().length > 0) {
            where = "resource " + RESOURCE;
            listed = String.join(",", gpu.addresses());
            for (String a : gpu.addresses()) {
                add(out, ordinal(a, where), where, listed);
            }
        } else if (devices != null && !devices.isBlank()) {
            where = DEVICES;
            listed = devices;
            for (String a : devices.split(",")) {
                add(out, ordinal(a, where), where, listed);
            }
        } else {
            return ExecutorDevices.ordinals(backend);
        }
        // Checked here so that the refusal names the setting, not the device id a context's open would name.
        int count = DeviceContext.deviceCount(backend);
        for (int o : out) {
            if (o >= count) {
                throw new InvalidArgumentException(where, "\"" + listed + "\" lists device " + o + " but the " + backend
                        + " backend has " + count + " device(s) here" + (count > 0 ? ", ordinals 0 to " + (count - 1)
                                : ""));
            }
        }
        return List.copyOf(out);
    }

    /** Adds {@code ordinal}, refusing one listed before: the executor holds each device once. */
    private static void add(List<Integer> ordinals, int ordinal, String where, String listed) {
        if (ordinals.contains(ordinal)) {
            throw new InvalidArgumentException(where, "\"" + listed + "\" lists device " + ordinal + " twice");
        }
        ordinals.add(ordinal);
    }

    /** {@code address} as a device ordinal. */
    static int ordinal(String address, String where) {
        try {
            int o = Integer.parseInt(address.strip());
            if (o >= 0) {
                return o;
            }
        } catch (NumberFormatException notANumber) {
            // reported below
        }
        throw new InvalidArgumentException(where, "address \"" + address + "\" is not a device ordinal (0, 1, ...):"
                + " Sluice reads the addresses a discovery script gives as the backend's device ordinals");
    }
}
