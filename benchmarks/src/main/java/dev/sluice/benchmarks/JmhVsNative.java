package dev.sluice.benchmarks;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Prints the JMH figures next to the C figures of {@code benchmarks/native} taken in the same run, as
 * ratios: {@code java -cp benchmarks.jar dev.sluice.benchmarks.JmhVsNative jmh.json native.txt}
 * ({@code scripts/bench.sh} runs it when both exist). A Sluice launch records a completion marker and
 * hands a future over, so it is set against C's launch followed by {@code cuEventRecord} (the marker
 * pattern), and against the bare launch.
 */
public final class JmhVsNative {

    private JmhVsNative() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: JmhVsNative JMH_RESULT.json NATIVE.txt");
            System.exit(2);
        }
        System.out.print(table(Files.readString(Path.of(args[0])), Files.readAllLines(Path.of(args[1]))));
    }

    /** One JMH result: benchmark (simple class name and method), parameters, score, error, percentiles. */
    record Result(String name, Map<String, String> params, double score, double error, String unit, Map<String, Double> percentiles) {
    }

    static String table(String jmhJson, List<String> nativeLines) {
        Map<String, Double> c = new LinkedHashMap<>();
        for (String line : nativeLines) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                try {
                    c.put(line.substring(0, eq).trim(), Double.parseDouble(line.substring(eq + 1).trim()));
                } catch (NumberFormatException e) {
                    // not a figure (device=..., date=...)
                }
            }
        }
        List<Result> results = new ArrayList<>();
        for (JsonElement e : JsonParser.parseString(jmhJson).getAsJsonArray()) {
            JsonObject r = e.getAsJsonObject();
            String[] parts = r.get("benchmark").getAsString().split("\\.");
            String name = parts[parts.length - 2] + "." + parts[parts.length - 1];
            JsonObject pm = r.getAsJsonObject("primaryMetric");
            results.add(new Result(name, strings(r.getAsJsonObject("params")), num(pm.get("score")), num(pm.get("scoreError")),
                    pm.get("scoreUnit").getAsString(), numbers(pm.getAsJsonObject("scorePercentiles"))));
        }
        StringBuilder out = new StringBuilder();
        out.append("\nSluice (JMH, mean ± 99.9 % interval) / C (benchmarks/native, same run)\n");
        out.append("| Sluice | params | Sluice µs | C | C µs | Sluice / C |\n|---|---|---:|---|---:|---:|\n");
        for (Result r : results) {
            if (!r.unit().equals("us/op")) {
                continue;
            }
            String params = r.params().isEmpty() ? "" : r.params().toString().replace("{", "").replace("}", "");
            switch (r.name()) {
                case "EnqueueBenchmark.launch0" -> {
                    row(out, r, params, "launch0_event_us", c);
                    row(out, r, params, "launch0_us", c);
                }
                case "EnqueueBenchmark.launch5" -> {
                    row(out, r, params, "launch5_event_us", c);
                    row(out, r, params, "launch5_us", c);
                }
                case "LatencyBenchmark.kernel" -> {
                    percentile(out, r, params, "50.0", "latency_event_p50_us", c);
                    percentile(out, r, params, "99.0", "latency_event_p99_us", c);
                }
                default -> { }
            }
        }
        if (c.containsKey("launch0_event_us") && c.containsKey("launch0_us")) {
            out.append(String.format(Locale.ROOT, "(C's cuEventRecord alone: launch0_event_us - launch0_us = %.3f µs)%n",
                    c.get("launch0_event_us") - c.get("launch0_us")));
        }
        return out.toString();
    }

    private static void row(StringBuilder out, Result r, String params, String key, Map<String, Double> c) {
        Double cv = c.get(key);
        if (cv == null) {
            return;
        }
        out.append(String.format(Locale.ROOT, "| %s | %s | %.3f ± %.3f | %s | %.3f | %.2f |%n", r.name(), params, r.score(), r.error(),
                key, cv, r.score() / cv));
    }

    private static void percentile(StringBuilder out, Result r, String params, String p, String key, Map<String, Double> c) {
        Double cv = c.get(key);
        Double s = r.percentiles().get(p);
        if (cv == null || s == null) {
            return;
        }
        out.append(String.format(Locale.ROOT, "| %s p%s | %s | %.3f | %s | %.3f | %.2f |%n", r.name(), p.replace(".0", ""), params, s,
                key, cv, s / cv));
    }

    /** A JMH figure: a number, or the string "NaN" where JMH could not compute one (an error bar of one iteration). */
    private static double num(JsonElement e) {
        return e == null || e.isJsonNull() ? Double.NaN : e.getAsDouble();
    }

    /** The parameters of a run, in JMH's order; none for a benchmark without {@code @Param}s. */
    private static Map<String, String> strings(@Nullable JsonObject o) {
        Map<String, String> m = new LinkedHashMap<>();
        if (o != null) {
            o.entrySet().forEach(e -> m.put(e.getKey(), e.getValue().getAsString()));
        }
        return m;
    }

    /** Percentiles keyed as JMH writes them ("50.0", "99.0"); none for a mode that samples no distribution. */
    private static Map<String, Double> numbers(@Nullable JsonObject o) {
        Map<String, Double> m = new LinkedHashMap<>();
        if (o != null) {
            o.entrySet().forEach(e -> m.put(e.getKey(), num(e.getValue())));
        }
        return m;
    }
}
