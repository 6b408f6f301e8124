package dev.sluice.hip;

import dev.sluice.Api;
import dev.sluice.BackendUnavailableException;
import dev.sluice.ContextOptions;
import dev.sluice.SluiceException;
import dev.sluice.spi.Backend;
import dev.sluice.spi.BackendProbe;
import dev.sluice.spi.ContextHandle;
import dev.sluice.spi.support.DeviceFaults;
import dev.sluice.spi.support.KernelCache;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The HIP backend, found by {@link java.util.ServiceLoader}. The constructor does nothing; {@link #probe()}
 * loads the library (see {@link HipApiLibrary} for where it looks and the system properties
 * {@value HipApiLibrary#HIP_PROPERTY} and {@value HipApiLibrary#HIPRTC_PROPERTY}), reads the versions and counts the
 * devices, once. No device (hipErrorNoDevice, or a count of 0) is reported as an unavailable backend whose
 * message names the library found and what it answered.
 *
 * <p>A device fault (illegal address, kernel failure) makes a HIP device unusable for the whole process.
 * When the last context of a faulted device closes, the backend resets the device ({@code hipDeviceReset}),
 * so that contexts opened later work again.
 */
public final class HipBackend implements Backend {

    private static final Logger LOG = System.getLogger(HipBackend.class.getName());

    private final @Nullable String hipFile;
    private final @Nullable String hiprtcFile;
    private final boolean fromProperties;
    private volatile @Nullable BackendProbe probe;
    private volatile @Nullable HipApi api;
    private volatile @Nullable KernelCompiler compiler;
    private int runtimeVersion;
    /** Open contexts and faults per device: a fault poisons the device until its last context closes. */
    private final DeviceFaults faults = new DeviceFaults();
    private final Map<ModuleKey, HipModule> modules = new HashMap<>();

    /** A code object on a device: the kernel's name and the SHA-256 of the image. */
    private record ModuleKey(int device, String kernel, String image) {
    }

    /** The service: the library from the system properties, or found by discovery. */
    public HipBackend() {
        this.hipFile = null;
        this.hiprtcFile = null;
        this.fromProperties = true;
    }

    /** A backend over a given library file (tests); null for discovery. */
    HipBackend(@Nullable String hipFile, @Nullable String hiprtcFile) {
        this.hipFile = hipFile;
        this.hiprtcFile = hiprtcFile;
        this.fromProperties = false;
    }

    @Override
    public String name() {
        return Api.HIP.id();
    }

    @Override
    public BackendProbe probe() {
        BackendProbe p = probe;
        if (p == null) {
            synchronized (this) {
                p = probe;
                if (p == null) {
                    p = doProbe();
                    probe = p;
                }
            }
        }
        return p;
    }

    private BackendProbe doProbe() {
        // Before any native call: without native access the JDK would warn (or, under deny, refuse the load and
        // the library would look absent).
        String refused = dev.sluice.spi.NativeAccess.refusal("HIP", HipBackend.class);
        if (refused != null) {
            return BackendProbe.unavailable(refused, List.of("nothing loaded (native access not granted)"));
        }
        HipApiLibrary lib;
        try {
            lib = fromProperties ? HipApiLibrary.load() : HipApiLibrary.load(hipFile, hiprtcFile);
        } catch (HipApiLibrary.NotFound e) {
            return BackendProbe.unavailable(e.getMessage() + " (set -D" + HipApiLibrary.HIP_PROPERTY + "=<file> to name it)", e.tried);
        } catch (Throwable t) {
            return BackendProbe.unavailable("loading the HIP runtime failed: " + t, List.of());
        }
        List<String> tried = lib.tried();
        try {
            HipApi a = new HipApi(lib);
            int runtime = a.runtimeVersion();
            String driver;
            try {
                driver = String.valueOf(a.driverVersion());
            } catch (SluiceException e) {
                driver = "unknown (" + e.getMessage() + ")";
            }
            String version = "HIP runtime " + longVersion(runtime) + " (hipRuntimeGetVersion " + runtime + ", hipDriverGetVersion "
                    + driver + ") from " + lib.hipName();
            int count = a.deviceCountOrNegatedStatus();
            if (count <= 0) {
                String answer = count == 0 ? "0 devices" : a.errorName(-count) + " (" + -count + ")";
                return new BackendProbe(false, 0, "no HIP device: " + version + " loaded, but hipGetDeviceCount answered " + answer,
                        tried, List.of());
            }
            List<String> devices = new ArrayList<>();
            for (int d = 0; d < count; d++) {
                devices.add(describe(a, d));
            }
            synchronized (this) {
                this.runtimeVersion = runtime;
                this.api = a;
            }
            return new BackendProbe(true, count, version, tried, devices);
        } catch (Throwable t) {
            return BackendProbe.unavailable(lib.hipName() + " loaded, but probing it failed: " + t, tried);
        }
    }

    private static String describe(HipApi a, int d) {
        try {
            String name = a.deviceName(d);
            long mem = a.deviceTotalMem(d);
            int major = a.deviceAttribute(HipApiConstants.hipDeviceAttributeComputeCapabilityMajor, d);
            int minor = a.deviceAttribute(HipApiConstants.hipDeviceAttributeComputeCapabilityMinor, d);
            return d + ": " + name + ", " + (mem >> 20) + " MiB, compute capability " + major + "." + minor;
        } catch (RuntimeException e) {
            return d + ": (could not be described: " + e.getMessage() + ")";
        }
    }

    @Override
    public ContextHandle open(int deviceId, ContextOptions options) {
        BackendProbe p = probe();
        HipApi a = api;
        if (!p.available() || a == null) {
            throw new BackendUnavailableException("hip backend unavailable: " + p.version());
        }
        HipContext c = new HipContext(this, a, deviceId, options);
        faults.acquire(deviceId);
        return c;
    }

    /** The loaded HIP API (after a successful probe); for tests. */
    @Nullable HipApi loadedApi() {
        return api;
    }

    synchronized int runtimeVersion() {
        return runtimeVersion;
    }

    String libraryName() {
        HipApi a = api;
        return a == null ? "libamdhip64" : a.lib.hipName();
    }

    KernelCompiler compiler() {
        KernelCompiler c = compiler;
        if (c == null) {
            synchronized (this) {
                c = compiler;
                if (c == null) {
                    c = new KernelCompiler(Objects.requireNonNull(api, "probe first"));
                    compiler = c;
                }
            }
        }
        return c;
    }

    /**
     * The kernel {@code kernelName} of {@code image} on {@code context}'s device, loaded on first use and then
     * shared by all the device's contexts until the device is reset. Loading once per process also keeps
     * module loads away from the hot path: on some drivers loading synchronises the device, which must never
     * happen while a stream waits on host work.
     */
    HipModule module(HipContext context, String kernelName, byte[] image) {
        ModuleKey key = new ModuleKey(context.device, kernelName, KernelCache.sha256(image));
        synchronized (modules) {
            HipModule m = modules.get(key);
            if (m == null) {
                m = context.loadImageNow(kernelName, image);
                modules.put(key, m);
            }
            return m;
        }
    }

    /** How many modules are loaded on {@code device} (tests). */
    int loadedModules(int device) {
        synchronized (modules) {
            return (int) modules.keySet().stream().filter(k -> k.device() == device).count();
        }
    }

    void markFaulted(int device) {
        faults.markFaulted(device);
    }

    /** Called by a closing context; resets a faulted device once its last context has closed. */
    void closed(HipContext c, boolean contextFaulted) {
        if (faults.release(c.device, contextFaulted)) {
            synchronized (modules) {
                modules.keySet().removeIf(k -> k.device() == c.device); // a reset destroys them
            }
            try {
                c.bind();
                c.api.deviceReset();
                LOG.log(Level.DEBUG, "hip device " + c.device + " reset after a fault");
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "hipDeviceReset of faulted device " + c.device + " failed", e);
            }
        }
    }

    /** "5.2.21153" from HIP's encoding (major·10⁷ + minor·10⁵ + patch), or CUDA-style "12.4" from 12040. */
    static String longVersion(int v) {
        if (v >= 10_000_000) {
            return (v / 10_000_000) + "." + (v / 100_000) % 100 + "." + v % 100_000;
        }
        return shortVersion(v);
    }

    /** "5.2" (or "12.4" from a CUDA-style 12040). */
    static String shortVersion(int v) {
        if (v >= 10_000_000) {
            return (v / 10_000_000) + "." + (v / 100_000) % 100;
        }
        return (v / 1000) + "." + (v % 1000) / 10;
    }
}
