package dev.sluice.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Prints the JMH figures next to the C figures of {@code benchmarks/native} from the same session, as
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
    record Result(String name, Map<String, Object> params, double score, double error, String unit, Map<String, Object> percentiles) {
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
        for (Object o : (List<?>) Json.parse(jmhJson)) {
            Map<?, ?> r = (Map<?, ?>) o;
            String full = (String) r.get("benchmark");
            String[] parts = full.split("\\.");
            String name = parts[parts.length - 2] + "." + parts[parts.length - 1];
            Map<?, ?> pm = (Map<?, ?>) r.get("primaryMetric");
            @SuppressWarnings("unchecked")
            Map<String, Object> params = r.get("params") == null ? Map.of() : (Map<String, Object>) r.get("params");
            @SuppressWarnings("unchecked")
            Map<String, Object> pct = pm.get("scorePercentiles") == null ? Map.of() : (Map<String, Object>) pm.get("scorePercentiles");
            results.add(new Result(name, params, num(pm.get("score")), num(pm.get("scoreError")), (String) pm.get("scoreUnit"), pct));
        }
        StringBuilder out = new StringBuilder();
        out.append("\nSluice (JMH, mean ± 99.9 % interval) / C (benchmarks/native, same session)\n");
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
        Object v = r.percentiles().get(p);
        if (cv == null || v == null) {
            return;
        }
        double s = num(v);
        out.append(String.format(Locale.ROOT, "| %s p%s | %s | %.3f | %s | %.3f | %.2f |%n", r.name(), p.replace(".0", ""), params, s,
                key, cv, s / cv));
    }

    private static double num(Object o) {
        if (o instanceof Number n) {
            return n.doubleValue();
        }
        if (o instanceof String s) {
            return s.equals("NaN") ? Double.NaN : Double.parseDouble(s);
        }
        return Double.NaN;
    }

    /** Just enough JSON for JMH's result file: objects, arrays, strings, numbers, booleans, null. */
    static final class Json {
        private final String s;
        private int i;

        private Json(String s) {
            this.s = s;
        }

        static Object parse(String text) {
            Json p = new Json(text);
            Object v = p.value();
            p.ws();
            if (p.i != text.length()) {
                throw new IllegalArgumentException("trailing text at " + p.i);
            }
            return v;
        }

        private void ws() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
        }

        private void expect(char c) {
            ws();
            if (i >= s.length() || s.charAt(i) != c) {
                throw new IllegalArgumentException("expected '" + c + "' at " + i);
            }
            i++;
        }

        private Object value() {
            ws();
            char c = s.charAt(i);
            if (c == '{') {
                Map<String, Object> m = new LinkedHashMap<>();
                expect('{');
                ws();
                if (s.charAt(i) == '}') {
                    i++;
                    return m;
                }
                while (true) {
                    ws();
                    String k = string();
                    expect(':');
                    m.put(k, value());
                    ws();
                    char d = s.charAt(i++);
                    if (d == '}') {
                        return m;
                    }
                    if (d != ',') {
                        throw new IllegalArgumentException("expected ',' or '}' at " + (i - 1));
                    }
                }
            }
            if (c == '[') {
                List<Object> l = new ArrayList<>();
                expect('[');
                ws();
                if (s.charAt(i) == ']') {
                    i++;
                    return l;
                }
                while (true) {
                    l.add(value());
                    ws();
                    char d = s.charAt(i++);
                    if (d == ']') {
                        return l;
                    }
                    if (d != ',') {
                        throw new IllegalArgumentException("expected ',' or ']' at " + (i - 1));
                    }
                }
            }
            if (c == '"') {
                return string();
            }
            for (String w : new String[] {"true", "false", "null"}) {
                if (s.startsWith(w, i)) {
                    i += w.length();
                    return w.equals("null") ? null : Boolean.valueOf(w);
                }
            }
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
            if (start == i) {
                throw new IllegalArgumentException("unexpected '" + c + "' at " + i);
            }
            return Double.parseDouble(s.substring(start, i));
        }

        private String string() {
            expect('"');
            StringBuilder sb = new StringBuilder();
            while (true) {
                char c = s.charAt(i++);
                if (c == '"') {
                    return sb.toString();
                }
                if (c != '\\') {
                    sb.append(c);
                    continue;
                }
                char e = s.charAt(i++);
                switch (e) {
                    case 'n' -> sb.append('\n');
                    case 'r' -> sb.append('\r');
                    case 't' -> sb.append('\t');
                    case 'b' -> sb.append('\b');
                    case 'f' -> sb.append('\f');
                    case 'u' -> {
                        sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                    }
                    default -> sb.append(e);
                }
            }
        }
    }
}
