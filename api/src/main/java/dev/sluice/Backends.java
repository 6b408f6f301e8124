package dev.sluice;

import dev.sluice.spi.Backend;
import dev.sluice.spi.BackendProbe;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The backends on the class path, found once with {@link ServiceLoader} and kept by name in the order
 * {@link DeviceContext#open()} tries them: the built-in ones ({@link Api}) first, in {@link Api}'s order, then the
 * others by {@link Backend#preference()}, highest first, then by name.
 */
final class Backends {

    private static final System.Logger LOG = System.getLogger(Backends.class.getName());
    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_-]*");

    private static volatile @Nullable Map<String, Backend> found;

    private Backends() {
    }

    /** Every backend found, by name, in the order {@link DeviceContext#open()} tries them. */
    static Map<String, Backend> all() {
        Map<String, Backend> m = found;
        if (m == null) {
            synchronized (Backends.class) {
                m = found;
                if (m == null) {
                    m = load();
                    found = m;
                }
            }
        }
        return m;
    }

    private static Map<String, Backend> load() {
        Map<String, Backend> byName = new LinkedHashMap<>();
        var it = ServiceLoader.load(Backend.class, Backends.class.getClassLoader()).iterator();
        while (true) {
            Backend b;
            try {
                if (!it.hasNext()) {
                    break;
                }
                b = it.next();
            } catch (ServiceConfigurationError e) {
                // A backend whose classes cannot load (missing JCuda, say) is simply absent;
                // detect() reports which backends were found.
                LOG.log(System.Logger.Level.DEBUG, "backend skipped: " + e);
                continue;
            }
            String name = b.name();
            if (name == null || !NAME.matcher(name).matches()) {
                LOG.log(System.Logger.Level.WARNING, "backend " + b.getClass().getName() + " skipped: its name '" + name
                        + "' is not lower-case letters, digits, '-' and '_' starting with a letter");
                continue;
            }
            Backend earlier = byName.putIfAbsent(name, b);
            if (earlier != null) {
                LOG.log(System.Logger.Level.WARNING, "backend " + b.getClass().getName() + " skipped: the name '" + name
                        + "' is taken by " + earlier.getClass().getName() + ", found first on the class path");
            }
        }
        List<Backend> ordered = new ArrayList<>(byName.values());
        ordered.sort(Comparator.comparingInt(Backends::builtInRank)
                .thenComparing(Comparator.comparingInt(Backend::preference).reversed())
                .thenComparing(Backend::name));
        Map<String, Backend> m = new LinkedHashMap<>();
        for (Backend b : ordered) {
            m.put(b.name(), b);
        }
        return Collections.unmodifiableMap(m);
    }

    /** The built-in backends' place in {@link Api}'s order; every other backend after them. */
    private static int builtInRank(Backend b) {
        Api api = builtIn(b.name());
        return api == null ? Api.values().length : api.ordinal();
    }

    /** The built-in {@link Api} named {@code name}, or null for any other name. */
    static @Nullable Api builtIn(String name) {
        for (Api api : Api.values()) {
            if (api.id().equals(name)) {
                return api;
            }
        }
        return null;
    }

    /** {@code name} as backends are keyed: stripped and lower-case. */
    static String normalize(String name) {
        return name.strip().toLowerCase(Locale.ROOT);
    }

    /**
     * The names {@link DeviceContext#open()} tries, in its order: every built-in name (present or not, so that a
     * missing built-in is reported), then the other backends found.
     */
    static List<String> openOrder() {
        List<String> names = new ArrayList<>();
        for (Api api : Api.values()) {
            names.add(api.id());
        }
        for (String name : all().keySet()) {
            if (!names.contains(name)) {
                names.add(name);
            }
        }
        return names;
    }

    /** The probe of the backend named {@code name} (normalised); an unavailable probe if none has that name. */
    static BackendProbe probe(String name) {
        Backend b = all().get(name);
        if (b == null) {
            String where = builtIn(name) != null ? " (artifact sluice-" + name + ", service dev.sluice.spi.Backend)"
                    : " (a jar registering dev.sluice.spi.Backend with this name)";
            return BackendProbe.unavailable("no " + name + " backend on the class path" + where, List.of());
        }
        return b.probe();
    }

    /**
     * The backend named {@code name} (any case, surrounding blanks ignored) as {@code argument} of the calling method.
     *
     * @throws InvalidArgumentException naming {@code argument}, the value and the known backends, for a name that is
     *                                  neither built in nor found on the class path
     */
    static String known(String argument, String name) {
        Checks.notNull(argument, name);
        String n = normalize(name);
        if (builtIn(n) == null && !all().containsKey(n)) {
            throw new InvalidArgumentException(argument, "unknown backend '" + name + "'" + didYouMean(n, openOrder())
                    + "; expected one of " + String.join(", ", openOrder()));
        }
        return n;
    }

    /**
     * {@code " (did you mean cuda?)"} for a name one or two edits (a neighbour swap counting one) from a known one, the
     * nearest; else nothing. Built only on the way to an exception.
     */
    static String didYouMean(String name, List<String> known) {
        String best = "";
        int bestDistance = Integer.MAX_VALUE;
        for (String k : known) {
            int d = editDistance(name, k);
            if (d < bestDistance) {
                best = k;
                bestDistance = d;
            }
        }
        return bestDistance <= (name.length() <= 4 ? 1 : 2) ? " (did you mean " + best + "?)" : "";
    }

    private static int editDistance(String a, String b) {
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
}
