package dev.sluice.flink;

import static org.apache.flink.configuration.ConfigOptions.key;

import dev.sluice.InvalidArgumentException;
import dev.sluice.reactive.GpuPipeline;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.apache.flink.util.TimeUtils;
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
 *
 * <p><b>Time limits.</b> The element timeout is the argument of Flink's {@code orderedWait} / {@code unorderedWait},
 * not an option here. The one wait of this module with a limit of its own is {@link #ARROW_CLOSE_TIMEOUT}. The close of
 * a function waits for its lanes' device work without one (as {@link dev.sluice.DeviceStream#close()} does, until
 * interrupted), and opening a device context has none. The shared context of a device, closed when the last subtask on
 * it lets go, waits for its futures as {@link dev.sluice.DeviceContext#close()} does (at most 10 s once the device has
 * finished): one context serves every job of the TaskManager, so that limit is no job's setting.
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

    /** Lanes per subtask where the function's builder set none; 4 by default, from 1 to {@value #MAX_LANES}. */
    public static final ConfigOption<Integer> LANES = key("sluice.lanes").intType().defaultValue(4)
            .withDescription("Lanes per subtask of GPU stages (elements on the device at once), 1 to 64, where the"
                    + " job's code sets none.");

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

    /**
     * How long the close of an {@link ArrowBatches} function waits for elements still finishing (their device work
     * ended, their results being made) to give their Arrow vectors back before it closes the subtask's allocator; 10 s
     * by default, from 0 (no wait) to {@link #MAX_CLOSE_TIMEOUT}. Memory still allocated then fails the close, naming
     * the elements not finished.
     */
    public static final ConfigOption<Duration> ARROW_CLOSE_TIMEOUT = key("sluice.arrow.close-timeout").durationType()
            .defaultValue(Duration.ofSeconds(10))
            .withDescription("How long the close of a GPU stage over Arrow batches waits for elements still finishing"
                    + " to give their Arrow memory back before it closes the subtask's allocator (0: no wait); memory"
                    + " still allocated then fails the close.");

    /** The most lanes per subtask: a reactive pipeline's ({@link GpuPipeline#MAX_LANES}), whose lanes they are. */
    static final int MAX_LANES = GpuPipeline.MAX_LANES;

    /**
     * The longest {@link #ARROW_CLOSE_TIMEOUT}: one hour. The wait holds Flink's task thread in the function's close,
     * when the task is cancelled too (where Flink's {@code task.cancellation.timeout}, 3 minutes by default, ends the
     * TaskManager first), for elements whose device work has ended already.
     */
    static final Duration MAX_CLOSE_TIMEOUT = Duration.ofHours(1);

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
     * {@link #LANES}; a whole number, spaces around it ignored.
     *
     * @throws InvalidArgumentException naming the option if it is no whole number, or one outside 1 to
     *                                  {@value #MAX_LANES}
     */
    static int lanes(Configuration settings) {
        int lanes;
        try {
            lanes = settings.get(LANES);
        } catch (IllegalArgumentException notAnInt) {
            // Flink's own message names the key and the value but not the limits; and it refuses " 4 ".
            String raw = raw(settings, LANES);
            try {
                lanes = Integer.parseInt(raw.strip());
            } catch (NumberFormatException e) {
                throw new InvalidArgumentException(LANES.key(), "value '" + raw + "' is not a whole number from 1 to "
                        + MAX_LANES);
            }
        }
        return checkLanes(LANES.key(), lanes);
    }

    /** What the job or the cluster wrote for {@code option}, as it was written. */
    private static String raw(Configuration settings, ConfigOption<?> option) {
        return String.valueOf(settings.toMap().get(option.key()));
    }

    /**
     * {@code lanes}, given as {@code name}, checked.
     *
     * @throws InvalidArgumentException naming {@code name} if {@code lanes} is outside 1 to {@value #MAX_LANES}
     */
    static int checkLanes(String name, int lanes) {
        if (lanes < 1 || lanes > MAX_LANES) {
            throw new InvalidArgumentException(name, "value " + lanes + " is outside 1 to " + MAX_LANES);
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

    /**
     * {@link #FATAL_ON_STICKY_FAULT}, or null where neither the job nor the cluster set it; {@code true} or
     * {@code false} in any case, spaces around it ignored.
     *
     * @throws InvalidArgumentException naming the option for any other value
     */
    static @Nullable Boolean fatalOnStickyFault(Configuration settings) {
        try {
            return settings.getOptional(FATAL_ON_STICKY_FAULT).orElse(null);
        } catch (IllegalArgumentException notABoolean) {
            String raw = raw(settings, FATAL_ON_STICKY_FAULT);
            String value = raw.strip();
            if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) {
                return Boolean.valueOf(value.equalsIgnoreCase("true"));
            }
            throw new InvalidArgumentException(FATAL_ON_STICKY_FAULT.key(), "value '" + raw + "' is neither true nor"
                    + " false");
        }
    }

    /**
     * {@link #ARROW_CLOSE_TIMEOUT}.
     *
     * @throws InvalidArgumentException naming the option for a value that is no duration, or one outside 0 to
     *                                  {@link #MAX_CLOSE_TIMEOUT}
     */
    static Duration arrowCloseTimeout(Configuration settings) {
        Duration value;
        try {
            value = settings.get(ARROW_CLOSE_TIMEOUT);
        } catch (IllegalArgumentException notADuration) {
            // Flink's own message names the key and the value but not the forms or the limits.
            throw new InvalidArgumentException(ARROW_CLOSE_TIMEOUT.key(), "value '"
                    + settings.toMap().get(ARROW_CLOSE_TIMEOUT.key()) + "' is not a duration from 0 to "
                    + TimeUtils.formatWithHighestUnit(MAX_CLOSE_TIMEOUT) + " (as '10 s' or '500 ms')");
        }
        return checkCloseTimeout(ARROW_CLOSE_TIMEOUT.key(), value);
    }

    /**
     * {@code value}, a close timeout given as {@code name}, checked.
     *
     * @throws InvalidArgumentException naming {@code name} if {@code value} is null, negative or over
     *                                  {@link #MAX_CLOSE_TIMEOUT}
     */
    static Duration checkCloseTimeout(String name, @Nullable Duration value) {
        if (value == null) {
            throw new InvalidArgumentException(name, "null");
        }
        if (value.isNegative() || value.compareTo(MAX_CLOSE_TIMEOUT) > 0) {
            String given = value.isNegative() ? "-" + TimeUtils.formatWithHighestUnit(value.negated())
                    : TimeUtils.formatWithHighestUnit(value);
            throw new InvalidArgumentException(name, "value " + given + " must be from 0 to "
                    + TimeUtils.formatWithHighestUnit(MAX_CLOSE_TIMEOUT));
        }
        return value;
    }
}
