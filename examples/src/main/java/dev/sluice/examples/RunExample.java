package dev.sluice.examples;

import dev.sluice.BackendUnavailableException;
import dev.sluice.InvalidArgumentException;
import dev.sluice.SluiceProperties;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Runs one example by its simple name, the first argument; the rest are the example's arguments. This is what
 * {@code ./mvnw -q -pl examples exec:exec -Dexample=NAME} starts. A name that is no example, or a backend that is
 * absent or unknown ({@code -Dsluice.api=gpu}), gets one line on stderr and a non-zero exit status instead of a stack
 * trace:
 *
 * <pre>
 * RunExample Demo --size 256Mi      runs Demo with "--size 256Mi"
 * RunExample Nope                   "no example named Nope; the examples: Demo, ScalarAdd, ...", exit status 2
 * </pre>
 *
 * <p>Each example's own {@code main} still runs directly ({@code java -cp ... dev.sluice.examples.Demo}), with the
 * JVM's usual report of an exception.
 */
public final class RunExample {

    /** Exit status for a backend that is absent. */
    static final int BACKEND_UNAVAILABLE = 1;

    /** Exit status for a name that is no example. */
    static final int NO_SUCH_EXAMPLE = 2;

    /** Every example, by simple name, in the order the README lists them; RunExampleTest keeps it complete. */
    static final Map<String, Consumer<String[]>> EXAMPLES = examples();

    private RunExample() {
    }

    private static Map<String, Consumer<String[]>> examples() {
        Map<String, Consumer<String[]>> m = new LinkedHashMap<>();
        m.put("Demo", Demo::main);
        m.put("ScalarAdd", ScalarAdd::main);
        m.put("PrintThreads", PrintThreads::main);
        m.put("MapToHost", MapToHost::main);
        m.put("TwoStreams", TwoStreams::main);
        m.put("PeerCopy", PeerCopy::main);
        m.put("Quickstart", Quickstart::main);
        m.put("WrittenOnce", WrittenOnce::main);
        m.put("Iterations", Iterations::main);
        m.put("ArrowIpc", args -> {
            try {
                ArrowIpc.main(args);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        m.put("FlinkJob", args -> {
            try {
                FlinkJob.main(args);
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("FlinkJob failed: " + e, e);
            }
        });
        m.put("FlinkBench", args -> {
            try {
                FlinkBench.main(args);
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("FlinkBench failed: " + e, e);
            }
        });
        m.put("SparkJob", SparkJob::main);
        m.put("SparkBench", args -> {
            try {
                SparkBench.main(args);
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("SparkBench failed: " + e, e);
            }
        });
        return Collections.unmodifiableMap(m);
    }

    /**
     * Runs the example {@code args[0]} with the remaining arguments; exits with a non-zero status where that is no
     * example or its backend is absent.
     *
     * @param args the example's simple name, then its arguments
     */
    public static void main(String[] args) {
        int status = run(EXAMPLES, args, System.err);
        if (status != 0) {
            System.exit(status);
        }
    }

    /**
     * Runs the example of {@code examples} named {@code args[0]}; returns 0, or the exit status after the one line
     * written to {@code err}.
     */
    static int run(Map<String, Consumer<String[]>> examples, String[] args, PrintStream err) {
        String name = args.length == 0 ? "" : args[0];
        Consumer<String[]> example = examples.get(name);
        if (example == null) {
            err.println((name.isEmpty() ? "no example named" : "no example named " + name) + nearest(name, examples.keySet())
                    + "; the examples: " + String.join(", ", examples.keySet()) + " (-Dexample=NAME)");
            return NO_SUCH_EXAMPLE;
        }
        try {
            example.accept(Arrays.copyOfRange(args, 1, args.length));
            return 0;
        } catch (InvalidArgumentException e) {
            if (!e.argument().endsWith(SluiceProperties.API) && !e.argument().endsWith(SluiceProperties.API_ENVIRONMENT)) {
                throw e;
            }
            err.println(name + ": " + e.getMessage());
            return BACKEND_UNAVAILABLE;
        } catch (RuntimeException e) {
            BackendUnavailableException absent = backendUnavailable(e);
            if (absent == null) {
                throw e;
            }
            err.println(name + ": " + absent.getMessage() + " (DeviceContext.detect(), or ./sluice detect, lists the"
                    + " backends and devices this machine has)");
            return BACKEND_UNAVAILABLE;
        }
    }

    /**
     * {@code " (did you mean WrittenOnce?)"} for the example whose name is nearest to {@code name}, ignoring case, if it
     * is within a third of the name's letters (at least one edit) or starts with {@code name}; else nothing.
     */
    static String nearest(String name, Collection<String> names) {
        String given = name.toLowerCase(Locale.ROOT);
        String best = "";
        int bestDistance = Integer.MAX_VALUE;
        for (String n : names) {
            String known = n.toLowerCase(Locale.ROOT);
            int d = known.startsWith(given) && given.length() >= 3 ? 0 : distance(given, known);
            if (d < bestDistance) {
                best = n;
                bestDistance = d;
            }
        }
        return !given.isEmpty() && bestDistance <= Math.max(1, given.length() / 3) ? " (did you mean " + best + "?)" : "";
    }

    /** Levenshtein distance, with a swap of two neighbours counting as one edit. */
    private static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1),
                        d[i - 1][j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1));
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }

    /** The BackendUnavailableException {@code e} is or was caused by (a future's join wraps it), else null. */
    private static @Nullable BackendUnavailableException backendUnavailable(Throwable e) {
        for (@Nullable Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BackendUnavailableException b) {
                return b;
            }
        }
        return null;
    }
}
