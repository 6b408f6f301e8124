package dev.sluice.hip;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.sluice.CompilationException;
import dev.sluice.spi.support.KernelCache;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * Run-time compilation of CUDA C++ kernel source with hiprtc, for the device bound on the calling thread
 * (hiprtc targets the current device when no {@code --offload-arch} is given), with the results kept in the
 * {@link KernelCache} under "hip". The kernels' dialect ({@code extern "C" __global__}, {@code threadIdx},
 * {@code blockIdx}, {@code blockDim}, {@code __shared__}, {@code __syncthreads}) needs no header under hiprtc.
 * Compilations are serialised: hiprtc's thread safety differs between versions.
 */
final class KernelCompiler {

    private final HipApi api;
    private static final String EXTENSION = "hsaco";
    private final KernelCache cache = new KernelCache("hip");
    private volatile String version;

    KernelCompiler(HipApi api) {
        this.api = api;
    }

    /** A compiled image and the cache key it is stored under. */
    record Image(byte[] code, String key, boolean fromCache) {
    }

    String version() {
        String v = version;
        if (v == null) {
            v = api.hiprtcVersion();
            version = v;
        }
        return v;
    }

    /**
     * The code object for {@code source}, from the cache or compiled now for device {@code device}, whose code is
     * identified by {@code archKey} (name, compute capability, gfx number, runtime).
     */
    Image compile(int device, String archKey, String kernelName, String source, List<String> options) {
        List<String> parts = new ArrayList<>();
        parts.add("hip");
        parts.add("hiprtc " + version());
        parts.add(archKey);
        parts.addAll(options);
        parts.add(kernelName);
        parts.add(source);
        String key = KernelCache.key(parts);
        byte[] cached = cache.get(key, EXTENSION);
        if (cached != null && cached.length > 0) {
            return new Image(cached, key, true);
        }
        byte[] code;
        synchronized (KernelCompiler.class) {
            api.setDevice(device);
            code = compileNow(kernelName, source, options);
        }
        cache.put(key, EXTENSION, code);
        return new Image(code, key, false);
    }

    void evict(Image image) {
        cache.evict(image.key(), EXTENSION);
    }

    private byte[] compileNow(String kernelName, String source, List<String> options) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment progOut = a.allocate(ADDRESS);
            int r = api.hiprtcCreateProgram(progOut, a.allocateFrom(source), a.allocateFrom(kernelName + ".cu"));
            if (r != HipApiConstants.HIPRTC_SUCCESS) {
                throw failure("hiprtcCreateProgram", kernelName, r, "");
            }
            long prog = progOut.get(JAVA_LONG, 0);
            try {
                MemorySegment opts = a.allocate(ADDRESS, Math.max(1, options.size()));
                for (int i = 0; i < options.size(); i++) {
                    opts.setAtIndex(ADDRESS, i, a.allocateFrom(options.get(i)));
                }
                r = api.hiprtcCompileProgram(prog, options.size(), opts);
                String log = log(a, prog);
                if (r != HipApiConstants.HIPRTC_SUCCESS) {
                    throw failure("hiprtcCompileProgram", kernelName, r, log);
                }
                MemorySegment size = a.allocate(JAVA_LONG);
                r = api.hiprtcGetCodeSize(prog, size);
                if (r != HipApiConstants.HIPRTC_SUCCESS) {
                    throw failure("hiprtcGetCodeSize", kernelName, r, log);
                }
                MemorySegment code = a.allocate(Math.max(1, size.get(JAVA_LONG, 0)));
                r = api.hiprtcGetCode(prog, code);
                if (r != HipApiConstants.HIPRTC_SUCCESS) {
                    throw failure("hiprtcGetCode", kernelName, r, log);
                }
                return code.asSlice(0, size.get(JAVA_LONG, 0)).toArray(ValueLayout.JAVA_BYTE);
            } finally {
                api.hiprtcDestroyProgram(progOut);
            }
        }
    }

    private String log(Arena a, long prog) {
        MemorySegment size = a.allocate(JAVA_LONG);
        if (api.hiprtcGetProgramLogSize(prog, size) != HipApiConstants.HIPRTC_SUCCESS || size.get(JAVA_LONG, 0) <= 1) {
            return "";
        }
        MemorySegment log = a.allocate(size.get(JAVA_LONG, 0) + 1);
        if (api.hiprtcGetProgramLog(prog, log) != HipApiConstants.HIPRTC_SUCCESS) {
            return "";
        }
        return log.getString(0).strip();
    }

    private CompilationException failure(String call, String kernelName, int result, String log) {
        String name = api.hiprtcErrorString(result);
        return new CompilationException("hiprtc could not compile kernel " + kernelName + ": " + call + " returned " + name
                + " (" + result + ")", log, name, result);
    }
}
