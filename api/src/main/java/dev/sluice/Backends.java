package dev.sluice;

import dev.sluice.spi.Backend;
import dev.sluice.spi.BackendProbe;
import java.util.EnumMap;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/** The backends on the class path, found once with {@link ServiceLoader}. */
final class Backends {

    private static volatile Map<Api, Backend> found;

    private Backends() {
    }

    static Map<Api, Backend> all() {
        Map<Api, Backend> m = found;
        if (m == null) {
            synchronized (Backends.class) {
                m = found;
                if (m == null) {
                    m = new EnumMap<>(Api.class);
                    var it = ServiceLoader.load(Backend.class, Backends.class.getClassLoader()).iterator();
                    while (true) {
                        try {
                            if (!it.hasNext()) {
                                break;
                            }
                            Backend b = it.next();
                            m.putIfAbsent(b.api(), b);
                        } catch (ServiceConfigurationError e) {
                            // A backend whose classes cannot load (missing JCuda, say) is simply absent;
                            // detect() reports which backends were found.
                            System.getLogger(Backends.class.getName())
                                    .log(System.Logger.Level.DEBUG, "backend skipped: " + e);
                        }
                    }
                    found = m;
                }
            }
        }
        return m;
    }

    static BackendProbe probe(Api api) {
        Backend b = all().get(api);
        if (b == null) {
            return BackendProbe.unavailable("no " + api.id() + " backend on the class path (artifact sluice-" + api.id()
                    + ", service dev.sluice.spi.Backend)", java.util.List.of());
        }
        return b.probe();
    }
}
