package dev.sluice.cuda;

import dev.sluice.spi.BackendProbe;
import dev.sluice.spi.NativeAccess;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.JCudaDriver;
import org.jspecify.annotations.Nullable;

/**
 * Finds the CUDA driver ({@code libcuda.so.1}) for the {@code java.lang.foreign} bindings, loads JCuda's
 * driver binding, initialises the driver and lists the devices, once per JVM. Never throws: whatever fails is
 * reported in the {@link BackendProbe}, with every library name and path tried.
 */
final class CuLibrary {

    private static @Nullable BackendProbe probe;
    private static volatile @Nullable String driverPath;
    private static volatile int driverVersion;

    private CuLibrary() {
    }

    /** The libcuda file name or path that loaded; only valid once {@link #probe()} reported the backend available. */
    static String driverPath() {
        String p = driverPath;
        if (p == null) {
            throw new IllegalStateException("the CUDA driver library was not found (see DeviceContext.detect())");
        }
        return p;
    }

    /** The driver's CUDA version as an int (13000 for 13.0). */
    static int driverVersion() {
        return driverVersion;
    }

    static String versionString(int v) {
        return (v / 1000) + "." + (v % 1000) / 10;
    }

    /** Names and paths where libcuda may be, in the order tried. */
    static List<String> driverCandidates() {
        Set<String> c = new LinkedHashSet<>();
        String override = System.getProperty(dev.sluice.SluiceProperties.CUDA_DRIVER);
        if (override != null && !override.isBlank()) {
            c.add(override);
        }
        c.add("libcuda.so.1");
        c.add("libcuda.so");
        for (String dir : List.of("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/nvidia/lib64",
                "/usr/local/nvidia/lib", "/usr/lib/wsl/lib", "/run/opengl-driver/lib")) {
            c.add(dir + "/libcuda.so.1");
        }
        return new ArrayList<>(c);
    }

    static synchronized BackendProbe probe() {
        if (probe == null) {
            probe = load();
        }
        return probe;
    }

    private static BackendProbe load() {
        List<String> tried = new ArrayList<>();
        // Before any native call: the JDK's permission (no warning printed, no IllegalCallerException swallowed),
        // then JCuda's native binding for this platform (JCuda publishes it for linux-x86_64 and windows-x86_64).
        String refused = NativeAccess.refusal("CUDA", CuLibrary.class, JCudaDriver.class);
        if (refused != null) {
            tried.add("nothing loaded (native access not granted)");
            return BackendProbe.unavailable(refused, tried);
        }
        String noNatives = JcNatives.missing(System.getProperty("os.name", ""), System.getProperty("os.arch", ""),
                JCudaDriver.class.getClassLoader(), System.getProperty("java.library.path", ""));
        if (noNatives != null) {
            tried.add("JCuda " + JcNatives.VERSION + " driver binding (" + noNatives + ")");
            return BackendProbe.unavailable(noNatives, tried);
        }
        String found = null;
        for (String name : driverCandidates()) {
            if (name.startsWith("/") && !Files.exists(Path.of(name))) {
                tried.add(name + " (absent)");
                continue;
            }
            try {
                SymbolLookup lookup = SymbolLookup.libraryLookup(name, Arena.global());
                if (lookup.find("cuInit").isEmpty()) {
                    tried.add(name + " (loaded, but has no cuInit)");
                    continue;
                }
                found = name;
                tried.add(name + " (loaded)");
                break;
            } catch (RuntimeException | LinkageError e) {
                tried.add(name + " (" + firstLine(e.getMessage()) + ")");
            }
        }
        if (found == null) {
            return BackendProbe.unavailable("the CUDA driver library libcuda.so.1 was not found (no NVIDIA driver installed?)", tried);
        }
        driverPath = found;
        eagerModuleLoading(tried);
        int result;
        try {
            JCudaDriver.setExceptionsEnabled(false);
            result = JCudaDriver.cuInit(0);
            tried.add("JCuda " + jcudaVersion() + " driver binding (loaded)");
        } catch (Throwable t) { // UnsatisfiedLinkError, NoClassDefFoundError, ExceptionInInitializerError
            tried.add("JCuda " + jcudaVersion() + " driver binding libJCudaDriver (" + firstLine(String.valueOf(t)) + ")");
            return BackendProbe.unavailable("JCuda's native driver binding could not be loaded: " + firstLine(String.valueOf(t)), tried);
        }
        try {
            if (result == 100) { // CUDA_ERROR_NO_DEVICE
                return new BackendProbe(true, 0, "CUDA driver loaded from " + found + ", but cuInit reports no device", tried,
                        List.of());
            }
            if (result != 0) {
                return BackendProbe.unavailable("cuInit failed: " + Cu.errorName(result) + " (" + result + "): " + Cu.errorString(result),
                        tried);
            }
            int[] v = new int[1];
            Jc.check(JCudaDriver.cuDriverGetVersion(v), "cuDriverGetVersion");
            driverVersion = v[0];
            int[] n = new int[1];
            Jc.check(JCudaDriver.cuDeviceGetCount(n), "cuDeviceGetCount");
            List<String> devices = new ArrayList<>();
            for (int i = 0; i < n[0]; i++) {
                devices.add(describe(i));
            }
            return new BackendProbe(true, n[0], "CUDA " + versionString(v[0]) + " driver (" + found + "), JCuda " + jcudaVersion(),
                    tried, devices);
        } catch (Throwable t) {
            return BackendProbe.unavailable("the CUDA driver did not answer: " + t, tried);
        }
    }

    /**
     * Asks the driver for eager module loading ({@code CUDA_MODULE_LOADING=EAGER}) unless the environment already
     * chose: with lazy loading (the default since CUDA 12.2) loading a kernel may need a context-wide
     * synchronisation, which can never finish while a stream waits at a host gate that the loading thread
     * would open later. Set through libc's {@code setenv} before {@code cuInit}, which reads it.
     */
    private static void eagerModuleLoading(List<String> tried) {
        if (System.getenv("CUDA_MODULE_LOADING") != null || Boolean.getBoolean(dev.sluice.SluiceProperties.CUDA_LAZY_LOADING)) {
            return;
        }
        try {
            Linker linker = Linker.nativeLinker();
            var setenv = linker.downcallHandle(linker.defaultLookup().find("setenv").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
            try (Arena a = Arena.ofConfined()) {
                int r = (int) setenv.invokeExact(a.allocateFrom("CUDA_MODULE_LOADING"), a.allocateFrom("EAGER"), 0);
                tried.add("CUDA_MODULE_LOADING=EAGER (" + (r == 0 ? "set" : "setenv failed") + ")");
            }
        } catch (Throwable t) {
            tried.add("CUDA_MODULE_LOADING=EAGER (not set: " + t + ")");
        }
    }

    private static String describe(int ordinal) {
        CUdevice d = new CUdevice();
        Jc.check(JCudaDriver.cuDeviceGet(d, ordinal), "cuDeviceGet");
        byte[] name = new byte[256];
        Jc.check(JCudaDriver.cuDeviceGetName(name, name.length, d), "cuDeviceGetName");
        long[] mem = new long[1];
        Jc.check(JCudaDriver.cuDeviceTotalMem(mem, d), "cuDeviceTotalMem");
        int[] major = new int[1];
        int[] minor = new int[1];
        // the attributes, not cuDeviceComputeCapability, which CUDA deprecated
        Jc.check(JCudaDriver.cuDeviceGetAttribute(major, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d),
                "cuDeviceGetAttribute");
        Jc.check(JCudaDriver.cuDeviceGetAttribute(minor, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d),
                "cuDeviceGetAttribute");
        return ordinal + ": " + cString(name) + ", " + String.format("%.1f GiB", mem[0] / (double) (1L << 30))
                + ", compute capability " + major[0] + "." + minor[0];
    }

    static String cString(byte[] b) {
        int n = 0;
        while (n < b.length && b[n] != 0) {
            n++;
        }
        return new String(b, 0, n, StandardCharsets.UTF_8);
    }

    private static String jcudaVersion() {
        return JcNatives.VERSION;
    }

    private static String firstLine(@Nullable String s) {
        if (s == null) {
            return "failed";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
