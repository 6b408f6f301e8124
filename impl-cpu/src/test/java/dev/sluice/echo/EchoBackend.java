package dev.sluice.echo;

import dev.sluice.ContextOptions;
import dev.sluice.cpu.CpuBackend;
import dev.sluice.spi.Backend;
import dev.sluice.spi.BackendProbe;
import dev.sluice.spi.ContextHandle;
import java.util.List;
import java.util.stream.IntStream;

/**
 * A backend that is not built in, as another jar would bring one: the CPU simulator under the name "echo", registered in
 * this test source set's {@code META-INF/services/dev.sluice.spi.Backend}. It uses only the SPI and {@link CpuBackend}'s
 * public face, nothing of Sluice's internals.
 */
public final class EchoBackend implements Backend {

    /** The test's own knob: how many devices echo reports; the simulator's count ({@code sluice.cpu.devices}) by default. */
    static final String DEVICES = "echo.devices";

    private final Backend cpu = new CpuBackend();

    @Override
    public String name() {
        return "echo";
    }

    /** Above {@link Aardvark}'s default 0, so that "echo" is tried first although it sorts after it by name. */
    @Override
    public int preference() {
        return 5;
    }

    @Override
    public BackendProbe probe() {
        BackendProbe p = cpu.probe();
        int n = Integer.getInteger(DEVICES, p.deviceCount());
        List<String> devices = IntStream.range(0, n).mapToObj(i -> i + ": echo of the CPU simulator").toList();
        return new BackendProbe(p.available(), n, "echo of " + p.version(), p.tried(), devices);
    }

    @Override
    public ContextHandle open(int deviceId, ContextOptions options) {
        return cpu.open(deviceId, options);
    }

    /** A second backend from outside, with the default preference and no library: listed, probed, never opened. */
    public static final class Aardvark implements Backend {

        @Override
        public String name() {
            return "aardvark";
        }

        @Override
        public BackendProbe probe() {
            return BackendProbe.unavailable("no aardvark driver", List.of("libaardvark.so: not found"));
        }

        @Override
        public ContextHandle open(int deviceId, ContextOptions options) {
            throw new AssertionError("opened a backend whose probe says it is unavailable");
        }
    }

    /** Registered after {@link EchoBackend} under its name: left out, the first one found keeps the name. */
    public static final class EchoAgain implements Backend {

        @Override
        public String name() {
            return "echo";
        }

        @Override
        public BackendProbe probe() {
            return BackendProbe.unavailable("the second echo", List.of());
        }

        @Override
        public ContextHandle open(int deviceId, ContextOptions options) {
            throw new AssertionError("opened the backend that lost its name to the first");
        }
    }

    /** A name that breaks the pattern: left out. */
    public static final class BadName implements Backend {

        @Override
        public String name() {
            return "Not A Name";
        }

        @Override
        public BackendProbe probe() {
            return BackendProbe.unavailable("a backend with a bad name", List.of());
        }

        @Override
        public ContextHandle open(int deviceId, ContextOptions options) {
            throw new AssertionError("opened the backend with a bad name");
        }
    }
}
