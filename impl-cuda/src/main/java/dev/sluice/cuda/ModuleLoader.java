package dev.sluice.cuda;

import dev.sluice.CompilationException;
import dev.sluice.ComputeCapability;
import dev.sluice.Kernel;
import dev.sluice.SluiceException;
import dev.sluice.UnsupportedOnBackendException;
import dev.sluice.spi.support.KernelCache;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Handles layer: turns a {@link Kernel} into a loaded module and function on one context. Forms are tried in this
 * order: CUDA C++ source (NVRTC for the device's exact {@code sm_XY}, cached on disk; a compile error is
 * final), fatbin, cubin, PTX. Images load with {@code cuModuleLoadDataEx} and an error-log buffer, so a bad
 * image fails with the JIT linker's message.
 */
final class ModuleLoader {

    private static final int LOG_BYTES = 16 * 1024;
    /** NVRTC output, under {@code <cache>/cuda}. */
    private static final KernelCache CACHE = new KernelCache("cuda");

    /**
     * A loaded module and its kernel; the caller owns the module (unloads it with its context).
     *
     * @param module   the {@code CUmodule}
     * @param function the kernel's {@code CUfunction}
     * @param ptx      the kernel's PTX, made on first request where the module came from a cubin
     */
    record Loaded(long module, long function, Supplier<@Nullable String> ptx) {
    }

    private ModuleLoader() {
    }

    /**
     * Loads {@code kernel} on {@code cu}, a device of {@code capability} described as {@code where} in errors.
     */
    static Loaded load(DriverContext cu, ComputeCapability capability, String where, Kernel kernel) {
        List<String> failures = new ArrayList<>();
        boolean anyForm = false;
        if (kernel.cudaSource().isPresent()) {
            anyForm = true;
            Loaded f = fromSource(cu, capability, kernel, failures);
            if (f != null) {
                return f;
            }
        }
        for (String form : List.of("fatbin", "cubin", "ptx")) {
            Optional<byte[]> image = switch (form) {
                case "fatbin" -> kernel.fatbin();
                case "cubin" -> kernel.cubin();
                default -> kernel.ptx();
            };
            if (image.isEmpty()) {
                continue;
            }
            anyForm = true;
            byte[] bytes = form.equals("ptx") ? nulTerminated(image.get()) : image.get();
            try {
                long module = loadImage(cu, bytes, kernel.name() + " (" + form + ")");
                String ptx = form.equals("ptx") ? new String(image.get(), StandardCharsets.UTF_8).strip() : null;
                return function(kernel.entryPoint(), module, () -> ptx);
            } catch (SluiceException e) {
                failures.add(form + ": " + e.getMessage());
            }
        }
        if (!anyForm) {
            throw new UnsupportedOnBackendException("kernel " + kernel.name() + " has no form the CUDA backend can run: give CUDA C++"
                    + " source, PTX, a cubin or a fatbin (it has " + forms(kernel) + ")");
        }
        throw new CompilationException("kernel " + kernel.name() + " could not be loaded on " + where,
                String.join("\n", failures), null, null);
    }

    private static String forms(Kernel k) {
        List<String> f = new ArrayList<>();
        if (k.java().isPresent()) {
            f.add("a Java implementation");
        }
        if (k.hipCodeObject().isPresent()) {
            f.add("a HIP code object");
        }
        return f.isEmpty() ? "none" : String.join(" and ", f);
    }

    /** Compiles (or finds in the cache) and loads; null with a failure noted when NVRTC is absent. */
    private static @Nullable Loaded fromSource(DriverContext cu, ComputeCapability capability, Kernel kernel, List<String> failures) {
        Nvrtc nvrtc;
        try {
            nvrtc = Nvrtc.get();
        } catch (CompilationException e) {
            failures.add("source: " + e.getMessage());
            if (kernel.ptx().isEmpty() && kernel.cubin().isEmpty() && kernel.fatbin().isEmpty()) {
                throw e;
            }
            return null;
        }
        int arch = capability.major() * 10 + capability.minor();
        String source = kernel.cudaSource().orElseThrow();
        List<String> options = kernel.compileOptions();
        boolean cubin = nvrtc.canMakeCubin() && nvrtc.supports(arch);
        String archOption = cubin ? "--gpu-architecture=sm_" + arch : "--gpu-architecture=compute_" + nvrtc.bestArchAtMost(arch);
        String key = key(kernel.name(), source, options, archOption, nvrtc.version(), cubin ? "cubin" : "ptx");
        byte[] image = CACHE.get(key, cubin ? "cubin" : "ptx");
        byte[] cachedPtx = CACHE.get(key, "ptx-of-cubin");
        if (image == null) {
            Nvrtc.Output out = nvrtc.compile(kernel.name(), source, options, archOption, cubin);
            image = out.image();
            CACHE.put(key, cubin ? "cubin" : "ptx", image);
            if (cubin && out.ptx() != null) {
                cachedPtx = out.ptx().getBytes(StandardCharsets.UTF_8);
                CACHE.put(key, "ptx-of-cubin", cachedPtx);
            }
        }
        long module = loadImage(cu, cubin ? image : nulTerminated(image), kernel.name() + " (" + archOption + ")");
        byte[] finalImage = image;
        byte[] ptxOfCubin = cachedPtx;
        return function(kernel.entryPoint(), module, () -> {
            if (!cubin) {
                return new String(finalImage, StandardCharsets.UTF_8).strip();
            }
            if (ptxOfCubin != null) {
                return new String(ptxOfCubin, StandardCharsets.UTF_8).strip();
            }
            // NVRTC kept no PTX next to the cubin: compile once more for the virtual architecture.
            String ptxKey = key(kernel.name(), source, options, "--gpu-architecture=compute_" + arch, nvrtc.version(), "ptx");
            byte[] p = CACHE.get(ptxKey, "ptx");
            if (p == null) {
                p = nvrtc.compile(kernel.name(), source, options, "--gpu-architecture=compute_" + arch, false).image();
                CACHE.put(ptxKey, "ptx", p);
            }
            return new String(p, StandardCharsets.UTF_8).strip();
        });
    }

    /**
     * The cache key of an NVRTC compilation: the kernel's name, source, options, target architecture, NVRTC version
     * and output form.
     */
    static String key(String name, String source, List<String> options, String arch, String nvrtcVersion, String form) {
        return KernelCache.key(List.of(name, source, String.join("\u0001", options), arch, nvrtcVersion, form));
    }

    private static Loaded function(String name, long module, Supplier<@Nullable String> ptx) {
        long f;
        try {
            f = Cu.moduleGetFunction(module, name);
        } catch (SluiceException e) {
            Cu.moduleUnload(module);
            throw new CompilationException("the module has no kernel named " + name + " (declare it extern \"C\" so its name is"
                    + " not mangled)", "", e.errorName().orElse(null), e.errorCode().isPresent() ? e.errorCode().getAsInt() : null);
        }
        return new Loaded(module, f, ptx);
    }

    static byte[] nulTerminated(byte[] text) {
        if (text.length > 0 && text[text.length - 1] == 0) {
            return text;
        }
        return Arrays.copyOf(text, text.length + 1);
    }

    /** cuModuleLoadDataEx with an error-log buffer. The context must be bound. */
    static long loadImage(DriverContext cu, byte[] image, String what) {
        cu.bind();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment img = a.allocate(image.length, 16);
            img.copyFrom(MemorySegment.ofArray(image));
            MemorySegment log = a.allocate(LOG_BYTES);
            MemorySegment opts = a.allocate(ValueLayout.JAVA_INT, 2);
            opts.setAtIndex(ValueLayout.JAVA_INT, 0, 5); // CU_JIT_ERROR_LOG_BUFFER
            opts.setAtIndex(ValueLayout.JAVA_INT, 1, 6); // CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES
            MemorySegment values = a.allocate(ValueLayout.JAVA_LONG, 2);
            values.setAtIndex(ValueLayout.JAVA_LONG, 0, log.address());
            values.setAtIndex(ValueLayout.JAVA_LONG, 1, LOG_BYTES);
            MemorySegment out = a.allocate(ValueLayout.JAVA_LONG);
            int r = Cu.moduleLoadDataEx(out, img, 2, opts, values);
            if (r != Cu.SUCCESS) {
                String name = Cu.errorName(r);
                throw new CompilationException("cuModuleLoadDataEx of " + what + " failed: " + name + " (" + r + "): "
                        + Cu.errorString(r), log.getString(0).strip(), name, r);
            }
            return out.get(ValueLayout.JAVA_LONG, 0);
        }
    }
}
