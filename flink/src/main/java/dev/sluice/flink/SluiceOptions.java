package dev.sluice.flink;

import static org.apache.flink.configuration.ConfigOptions.key;

import dev.sluice.InvalidArgumentException;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.jspecify.annotations.Nullable;

/**
 * The settings of {@link SluiceAsyncFunction} that a deployment gives in Flink's configuration rather than in the job's
 * code. Each function reads them when it opens, from two places:
 *
 * <ol>
 *   <li>the job's global parameters ({@code pipeline.global-job-parameters}, or
 *       {@code env.getConfig().setGlobalJobParameters(...)}): one job's settings;</li>
 *   <li>the TaskManager's Flink configuration ({@code config.yaml} of {@code $FLINK_CONF_DIR}, which Flink's scripts
 *       set for every TaskManager, read once per JVM): the cluster's settings.</li>
 * </ol>
 *
 * <p><b>Precedence:</b> what the function's builder set wins; then the job's parameters; then the TaskManager's
 * configuration; then, for the backend only, the system property {@code sluice.api} and the environment variable
 * {@code SLUICE_API}; then the defaults below.
 */
public final class SluiceOptions {

    /** {@value #ROUND_ROBIN}: {@link DeviceAssignment#roundRobin()}. */
    static final String ROUND_ROBIN = "round-robin";
    /** {@value #FIXED} followed by a position: {@link DeviceAssignment#fixed(int)}. */
    static final String FIXED = "fixed:";

    /** The backend ({@code cuda}, {@code hip}, {@code cpu}) where the function's builder named none. */
    public static final ConfigOption<String> BACKEND = key("sluice.backend").stringType().noDefaultValue()
            .withDescription("The Sluice backend of GPU stages (cuda, hip, cpu) where the job's code names none; unset:"
                    + " the system property sluice.api, else the first backend with a device.");

    /** Lanes per subtask where the function's builder set none; 4 by default. */
    public static final ConfigOption<Integer> LANES = key("sluice.lanes").intType().defaultValue(4)
            .withDescription("Lanes per subtask of GPU stages (elements on the device at once) where the job's code"
                    + " sets none.");

    /**
     * How subtasks are placed on the TaskManager's devices where the builder set no {@link DeviceAssignment}:
     * {@code round-robin} (the default) or {@code fixed:N} (every subtask on the device at position N).
     */
    public static final ConfigOption<String> DEVICE_ASSIGNMENT = key("sluice.device-assignment").stringType()
            .defaultValue(ROUND_ROBIN)
            .withDescription("Which of the TaskManager's devices a subtask uses: round-robin (subtask index modulo the"
                    + " devices) or fixed:N (every subtask on the device at position N).");

    /**
     * Whether a sticky device fault fails the TaskManager where the builder did not say; unset: on every backend but
     * the CPU simulator ({@link SluiceAsyncFunction#fatalOnStickyFault(boolean)}).
     */
    public static final ConfigOption<Boolean> FATAL_ON_STICKY_FAULT = key("sluice.fatal-on-sticky-fault").booleanType()
            .noDefaultValue()
            .withDescription("Whether a sticky device fault fails the TaskManager (true) or only its elements (false);"
                    + " unset: on every backend but the CPU simulator.");

    private SluiceOptions() {
    }

    /** The TaskManager's Flink configuration, read once per JVM: empty where no {@code $FLINK_CONF_DIR} is set. */
    private static final class Cluster {
        static final Configuration CONFIGURATION = load(System.getenv("FLINK_CONF_DIR"));
    }

    /** Flink's configuration in {@code dir} ({@code config.yaml}), or an empty one for no dir or one unreadable. */
    static Configuration load(@Nullable String dir) {
        if (dir == null || dir.isBlank()) {
            return new Configuration(); // an embedded cluster, a test: only the job's parameters count
        }
        try {
            return GlobalConfiguration.loadConfiguration(dir);
        } catch (RuntimeException unreadable) {
            System.getLogger(SluiceOptions.class.getName()).log(System.Logger.Level.WARNING,
                    "sluice-flink: Flink's configuration in " + dir + " could not be read; the sluice.* settings"
                            + " come from the job's parameters only", unreadable);
            return new Configuration();
        }
    }

    /** The settings of a TaskManager: its configuration, then the job's parameters over it. */
    static Configuration merged(Map<String, String> jobParameters) {
        return merged(jobParameters, Cluster.CONFIGURATION);
    }

    /** {@code cluster}, with {@code jobParameters} over it. */
    static Configuration merged(Map<String, String> jobParameters, Configuration cluster) {
        Configuration merged = new Configuration(cluster);
        merged.addAll(Configuration.fromMap(jobParameters));
        return merged;
    }

    /** {@link #BACKEND}, or empty where neither the job nor the cluster set it. */
    static Optional<String> backend(Configuration settings) {
        return settings.getOptional(BACKEND).map(String::trim).filter(s -> !s.isEmpty());
    }

    /**
     * {@link #LANES}.
     *
     * @throws InvalidArgumentException naming the option if it is below 1
     */
    static int lanes(Configuration settings) {
        int lanes = settings.get(LANES);
        if (lanes < 1) {
            throw new InvalidArgumentException(LANES.key(), "value " + lanes + " must be at least 1");
        }
        return lanes;
    }

    /**
     * {@link #DEVICE_ASSIGNMENT}.
     *
     * @throws InvalidArgumentException naming the option for a value that is neither {@code round-robin} nor
     *                                  {@code fixed:N} with N at least 0
     */
    static DeviceAssignment assignment(Configuration settings) {
        String value = settings.get(DEVICE_ASSIGNMENT).trim();
        if (value.equals(ROUND_ROBIN)) {
            return DeviceAssignment.roundRobin();
        }
        if (value.startsWith(FIXED)) {
            try {
                int position = Integer.parseInt(value.substring(FIXED.length()).trim());
                if (position >= 0) {
                    return DeviceAssignment.fixed(position);
                }
            } catch (NumberFormatException notANumber) {
                // refused below, with the forms it accepts
            }
        }
        throw new InvalidArgumentException(DEVICE_ASSIGNMENT.key(), "value '" + value + "' is neither " + ROUND_ROBIN
                + " nor " + FIXED + "N with N a device position from 0");
    }

    /** {@link #FATAL_ON_STICKY_FAULT}, or null where neither the job nor the cluster set it. */
    static @Nullable Boolean fatalOnStickyFault(Configuration settings) {
        return settings.getOptional(FATAL_ON_STICKY_FAULT).orElse(null);
    }
}
