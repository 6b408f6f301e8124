package dev.sluice.echo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.BackendUnavailableException;
import dev.sluice.ContextOptions;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.InvalidArgumentException;
import dev.sluice.Kernel;
import dev.sluice.LaunchConfig;
import dev.sluice.SluiceProperties;
import dev.sluice.UnsupportedOnBackendException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

/**
 * A backend from outside Sluice ({@link EchoBackend}, registered through {@code META-INF/services} as another jar would
 * register it) is opened by name and by {@code sluice.api}, listed and probed in the documented order, and named in the
 * error for an unknown backend.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EchoBackendTest {

    /** The build sets {@code sluice.cpu.devices} for the whole module; tests here change it and put it back. */
    private final @Nullable String cpuDevices = System.getProperty(SluiceProperties.CPU_DEVICES);

    @AfterEach
    void restoreProperties() {
        System.clearProperty(SluiceProperties.API);
        System.clearProperty(EchoBackend.DEVICES);
        if (cpuDevices == null) {
            System.clearProperty(SluiceProperties.CPU_DEVICES);
        } else {
            System.setProperty(SluiceProperties.CPU_DEVICES, cpuDevices);
        }
    }

    @Test
    void openByNameGivesAContextOfThatBackendThatRunsWork() throws Exception {
        try (DeviceContext ctx = DeviceContext.open("echo", 0)) {
            assertEquals("echo", ctx.backendName());
            assertTrue(ctx.toString().contains("echo"), ctx.toString());
            AtomicInteger threads = new AtomicInteger();
            DeviceFunction f = ctx.compile(Kernel.named("count").java(t -> threads.incrementAndGet()).build());
            ctx.stream().enqueueLaunch(f, LaunchConfig.of(2, 8)).get(10, TimeUnit.SECONDS);
            assertEquals(16, threads.get());
        }
    }

    @Test
    void openByNameIgnoresCaseAndSurroundingBlanks() {
        try (DeviceContext ctx = DeviceContext.open(" Echo ", 0, ContextOptions.defaults())) {
            assertEquals("echo", ctx.backendName());
        }
    }

    @Test
    void theApiPropertySelectsTheBackendByName() {
        System.setProperty(SluiceProperties.API, "echo");
        try (DeviceContext ctx = DeviceContext.open()) {
            assertEquals("echo", ctx.backendName());
        }
    }

    @Test
    void apiOfAContextOfABackendThatIsNotBuiltInSaysSoAndNamesTheAlternative() {
        try (DeviceContext ctx = DeviceContext.open("echo", 0)) {
            UnsupportedOnBackendException e = assertThrows(UnsupportedOnBackendException.class, ctx::api);
            assertTrue(e.getMessage().contains("'echo'") && e.getMessage().contains("backendName()"), e.getMessage());
        }
        try (DeviceContext cpu = DeviceContext.open(Api.CPU, 0)) {
            assertEquals(Api.CPU, cpu.api(), "a built-in backend keeps its Api");
            assertEquals("cpu", cpu.backendName());
        }
    }

    @Test
    void backendNamesListTheBuiltInsFirstThenOthersByPreferenceThenName() {
        // echo (preference 5) before aardvark (0) although it sorts after it; the second "echo" and the
        // backend with a bad name are left out
        assertEquals(List.of("cuda", "hip", "cpu", "echo", "aardvark"), DeviceContext.backendNames());
    }

    @Test
    void theFirstBackendRegisteredUnderANameKeepsIt() {
        int n = DeviceContext.deviceCount("cpu");
        assertTrue(DeviceContext.detect().contains("echo: " + n + " device(s), echo of Java"), DeviceContext.detect());
        assertFalse(DeviceContext.detect().contains("the second echo"), DeviceContext.detect());
    }

    @Test
    void probingReportsDevicesAndWhatAnAbsentBackendTried() {
        assertEquals(DeviceContext.deviceCount("cpu"), DeviceContext.deviceCount("echo"));
        assertEquals(0, DeviceContext.deviceCount("aardvark"));
        String d = DeviceContext.detect();
        assertTrue(d.contains("aardvark: unavailable: no aardvark driver; tried: libaardvark.so: not found"), d);
        System.setProperty(SluiceProperties.CPU_DEVICES, "3");
        assertEquals(3, DeviceContext.deviceCount("echo"), "the probe is the delegate's, read anew");
    }

    @Test
    void openWithoutANameTriesEveryBackendInOrderAndSaysWhatEachLacked() {
        System.setProperty(SluiceProperties.CPU_DEVICES, "0"); // cpu and echo have no device, aardvark no driver
        BackendUnavailableException e = assertThrows(BackendUnavailableException.class, () -> DeviceContext.open());
        String m = e.getMessage();
        int cuda = m.indexOf("\n  cuda: ");
        int hip = m.indexOf("\n  hip: ");
        int cpu = m.indexOf("\n  cpu: ");
        int echo = m.indexOf("\n  echo: ");
        int aardvark = m.indexOf("\n  aardvark: ");
        assertTrue(0 <= cuda && cuda < hip && hip < cpu && cpu < echo && echo < aardvark, m);
    }

    @Test
    void openWithoutANamePrefersABuiltInBackendWithADevice() {
        try (DeviceContext ctx = DeviceContext.open()) {
            assertEquals("cpu", ctx.backendName(), "cpu and echo have a device each; the built-in one comes first");
        }
    }

    @Test
    void openWithoutANamePicksABackendFromOutsideWhereNoBuiltInHasADevice() {
        System.setProperty(SluiceProperties.CPU_DEVICES, "0");
        System.setProperty(EchoBackend.DEVICES, "1");
        try (DeviceContext ctx = DeviceContext.open()) {
            assertEquals("echo", ctx.backendName());
        }
    }

    @Test
    void anUnknownNameIsRejectedListingTheKnownBackends() {
        assertUnknown("api", () -> DeviceContext.open("nosuch", 0));
        assertUnknown("api", () -> DeviceContext.deviceCount("nosuch"));
        System.setProperty(SluiceProperties.API, "nosuch");
        // open() has no argument naming the backend: the refusal names the property that did
        assertUnknown("system property " + SluiceProperties.API, DeviceContext::open);
    }

    @Test
    void contextsOfTwoBackendsAreNotPeersEvenOnOneSimulator() {
        try (DeviceContext echo = DeviceContext.open("echo", 0); DeviceContext cpu = DeviceContext.open("cpu", 0)) {
            assertFalse(echo.canAccess(cpu));
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> echo.enablePeerAccess(cpu));
            assertEquals("peer", e.argument());
            assertTrue(e.getMessage().contains("another backend"), e.getMessage());
        }
    }

    @Test
    void contextsOfTwoBackendsDoNotSharePinnedMemoryAndTheCopyIsRefusedNamingTheArgument() {
        try (DeviceContext echo = DeviceContext.open("echo", 0); DeviceContext cpu = DeviceContext.open("cpu", 0);
             dev.sluice.HostBuffer cpuPinned = cpu.allocateHost(dev.sluice.DType.I32, 16);
             dev.sluice.HostBuffer echoPinned = echo.allocateHost(dev.sluice.DType.I32, 16)) {
            assertFalse(echo.sharesPinnedMemoryWith(cpu));
            assertFalse(cpu.sharesPinnedMemoryWith(echo));
            dev.sluice.DeviceStream s = echo.createStream();
            dev.sluice.DeviceBuffer d = echo.allocate(dev.sluice.DType.I32, 16);
            InvalidArgumentException in = assertThrows(InvalidArgumentException.class, () -> s.enqueueCopy(cpuPinned, d));
            assertEquals("source", in.argument());
            assertTrue(in.getMessage().contains("sharesPinnedMemoryWith"), in.getMessage());
            InvalidArgumentException out = assertThrows(InvalidArgumentException.class, () -> s.enqueueCopy(d, cpuPinned));
            assertEquals("destination", out.argument());
            echoPinned.setInt(3, 42);
            s.enqueueCopy(echoPinned, d).join(); // its own pinned memory still goes
            int[] back = new int[16];
            s.enqueueCopy(d, dev.sluice.HostData.of(back)).join();
            assertEquals(42, back[3]);
        }
    }

    private static void assertUnknown(String argument, Executable call) {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, call);
        assertEquals(argument, e.argument());
        for (String name : List.of("'nosuch'", "cuda", "hip", "cpu", "echo", "aardvark")) {
            assertTrue(e.getMessage().contains(name), name + " in " + e.getMessage());
        }
    }
}
