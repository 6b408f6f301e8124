package dev.sluice.cuda;

import dev.sluice.CompilationException;
import java.lang.foreign.AddressLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * NVRTC bound with {@code java.lang.foreign} against whichever {@code libnvrtc.so.N} loads (13, 12, 11...),
 * since JCuda's own NVRTC binding needs exactly {@code libnvrtc.so.12}. Loaded once, on first use; if none
 * loads, the error lists every name and path tried.
 */
final class Nvrtc {

    private static final ValueLayout.OfInt I = ValueLayout.JAVA_INT;
    private static final AddressLayout A = ValueLayout.ADDRESS;
    private static final ValueLayout.OfLong J = ValueLayout.JAVA_LONG;

    private static @Nullable Nvrtc instance;
    private static @Nullable String failure;

    final String path;
    final int major;
    final int minor;
    private final @Nullable int[] supportedArchs;
    private final MethodHandle create;
    private final MethodHandle compile;
    private final MethodHandle logSize;
    private final MethodHandle log;
    private final MethodHandle ptxSize;
    private final MethodHandle ptx;
    private final @Nullable MethodHandle cubinSize;
    private final @Nullable MethodHandle cubin;
    private final MethodHandle destroy;
    private final MethodHandle errorString;

    /** The compiled image: a cubin (for an exact {@code sm_XY}) or PTX text, and the PTX if NVRTC kept it. */
    record Output(byte[] image, boolean isCubin, @Nullable String ptx, String log) {
    }

    private Nvrtc(String path, SymbolLookup lib) throws Throwable {
        this.path = path;
        Linker l = Linker.nativeLinker();
        MethodHandle version = h(l, lib, "nvrtcVersion", A, A);
        this.create = h(l, lib, "nvrtcCreateProgram", A, A, A, I, A, A);
        this.compile = h(l, lib, "nvrtcCompileProgram", J, I, A);
        this.logSize = h(l, lib, "nvrtcGetProgramLogSize", J, A);
        this.log = h(l, lib, "nvrtcGetProgramLog", J, A);
        this.ptxSize = h(l, lib, "nvrtcGetPTXSize", J, A);
        this.ptx = h(l, lib, "nvrtcGetPTX", J, A);
        this.cubinSize = lib.find("nvrtcGetCUBINSize").isPresent() ? h(l, lib, "nvrtcGetCUBINSize", J, A) : null;
        this.cubin = lib.find("nvrtcGetCUBIN").isPresent() ? h(l, lib, "nvrtcGetCUBIN", J, A) : null;
        this.destroy = h(l, lib, "nvrtcDestroyProgram", A);
        this.errorString = l.downcallHandle(lib.find("nvrtcGetErrorString").orElseThrow(), FunctionDescriptor.of(A, I));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ma = a.allocate(I);
            MemorySegment mi = a.allocate(I);
            int r = (int) version.invokeExact(ma, mi);
            if (r != 0) {
                throw new IllegalStateException("nvrtcVersion returned " + r);
            }
            this.major = ma.get(I, 0);
            this.minor = mi.get(I, 0);
        }
        int[] archs = null;
        if (lib.find("nvrtcGetNumSupportedArchs").isPresent() && lib.find("nvrtcGetSupportedArchs").isPresent()) {
            MethodHandle num = h(l, lib, "nvrtcGetNumSupportedArchs", A);
            MethodHandle list = h(l, lib, "nvrtcGetSupportedArchs", A);
            try (Arena a = Arena.ofConfined()) {
                MemorySegment n = a.allocate(I);
                if ((int) num.invokeExact(n) == 0 && n.get(I, 0) > 0) {
                    MemorySegment out = a.allocate(I, n.get(I, 0));
                    if ((int) list.invokeExact(out) == 0) {
                        archs = out.toArray(I);
                    }
                }
            }
        }
        this.supportedArchs = archs;
    }

    private static MethodHandle h(Linker l, SymbolLookup lib, String name, MemoryLayout... args) {
        MemorySegment s = lib.find(name).orElseThrow(() -> new IllegalStateException("no symbol " + name));
        return l.downcallHandle(s, FunctionDescriptor.of(I, args));
    }

    /** The loaded NVRTC. @throws CompilationException listing every name and path tried if none loads */
    static synchronized Nvrtc get() {
        if (instance != null) {
            return instance;
        }
        if (failure == null) {
            List<String> tried = new ArrayList<>();
            for (String c : candidates()) {
                if (c.startsWith("/") && !Files.exists(Path.of(c))) {
                    continue;
                }
                try {
                    SymbolLookup lib = SymbolLookup.libraryLookup(c, Arena.global());
                    if (lib.find("nvrtcCompileProgram").isEmpty()) {
                        tried.add(c + " (no nvrtcCompileProgram)");
                        continue;
                    }
                    instance = new Nvrtc(c, lib);
                    return instance;
                } catch (Throwable t) {
                    tried.add(c + " (" + String.valueOf(t.getMessage()).lines().findFirst().orElse("failed") + ")");
                }
            }
            failure = "NVRTC (libnvrtc.so.N) was not found; set sluice.nvrtc or SLUICE_NVRTC to its path. Tried: "
                    + String.join(", ", tried);
        }
        throw new CompilationException(failure, "", "NVRTC_NOT_FOUND", null);
    }

    /** Library names, then paths under CUDA_HOME, CUDA_PATH and /usr/local/cuda*, in the order tried. */
    static List<String> candidates() {
        Set<String> c = new LinkedHashSet<>();
        String p = System.getProperty(dev.sluice.SluiceProperties.NVRTC);
        if (p != null && !p.isBlank()) {
            c.add(p);
        }
        String e = System.getenv("SLUICE_NVRTC");
        if (e != null && !e.isBlank()) {
            c.add(e);
        }
        List<String> names = List.of("libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so.11.1",
                "libnvrtc.so.11.0");
        c.addAll(names);
        List<String> dirs = new ArrayList<>();
        for (String var : List.of("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT")) {
            String v = System.getenv(var);
            if (v != null && !v.isBlank()) {
                dirs.add(v + "/lib64");
                dirs.add(v + "/lib");
            }
        }
        dirs.add("/usr/local/cuda/lib64");
        dirs.add("/usr/local/cuda/lib");
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(Path.of("/usr/local"), "cuda-*")) {
            List<Path> found = new ArrayList<>();
            ds.forEach(found::add);
            found.sort(Comparator.reverseOrder());
            for (Path d : found) {
                dirs.add(d + "/lib64");
            }
        } catch (Exception ignored) {
            // no /usr/local or no cuda-* folders
        }
        dirs.add("/usr/lib/x86_64-linux-gnu");
        for (String d : dirs) {
            for (String n : names) {
                c.add(d + "/" + n);
            }
        }
        return new ArrayList<>(c);
    }

    String version() {
        return major + "." + minor;
    }

    /** Whether NVRTC can make a cubin for {@code sm_<arch>} (unknown list: assume yes). */
    boolean supports(int arch) {
        return supportedArchs == null || Arrays.stream(supportedArchs).anyMatch(a -> a == arch);
    }

    /** The newest architecture NVRTC supports that is not newer than {@code arch}, or {@code arch} if unknown. */
    int bestArchAtMost(int arch) {
        if (supportedArchs == null) {
            return arch;
        }
        int best = -1;
        for (int a : supportedArchs) {
            if (a <= arch && a > best) {
                best = a;
            }
        }
        return best < 0 ? arch : best;
    }

    boolean canMakeCubin() {
        return cubin != null && cubinSize != null;
    }

    /**
     * The options given to {@code nvrtcCompileProgram}: {@code archOption}, the architecture Sluice chose for the device,
     * then the kernel's own options; where those name an architecture themselves ({@code --gpu-architecture=...},
     * {@code -arch=...}, or either followed by the value as the next option), Sluice's is left out, since NVRTC refuses
     * two ({@code NVRTC_ERROR_INVALID_OPTION}) and the kernel's choice is the one meant.
     */
    static List<String> optionList(String archOption, List<String> options) {
        List<String> all = new ArrayList<>(options.size() + 1);
        if (architecture(options) == null) {
            all.add(archOption);
        }
        all.addAll(options);
        return all;
    }

    /** The architecture the kernel's {@code options} ask for ("sm_90", "compute_80"), or null where they name none. */
    static @Nullable String architecture(List<String> options) {
        String found = null;
        for (int i = 0; i < options.size(); i++) {
            String o = options.get(i).strip();
            for (String flag : ARCH_FLAGS) {
                if (o.equals(flag)) {
                    found = i + 1 < options.size() ? options.get(i + 1).strip() : "";
                } else if (o.startsWith(flag + "=")) {
                    found = o.substring(flag.length() + 1).strip();
                }
            }
        }
        return found;
    }

    private static final List<String> ARCH_FLAGS = List.of("--gpu-architecture", "-arch");

    /**
     * Compiles {@code source}. With {@code archOption} {@code --gpu-architecture=sm_XY} the result is a cubin
     * (and its PTX where NVRTC keeps it); with {@code compute_XY}, PTX. An architecture among {@code options} replaces
     * {@code archOption} ({@link #optionList}); if it is a virtual one the result is PTX even where a cubin was wanted.
     */
    Output compile(String name, String source, List<String> options, String archOption, boolean wantCubin) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment prog = a.allocate(A);
            check((int) create.invokeExact(prog, a.allocateFrom(source), a.allocateFrom(name + ".cu"), 0, MemorySegment.NULL,
                    MemorySegment.NULL), "nvrtcCreateProgram");
            long p = prog.get(J, 0);
            try {
                List<String> all = optionList(archOption, options);
                String userArch = architecture(options);
                // A virtual architecture of the kernel's own choosing makes PTX, whatever was wanted.
                boolean makeCubin = wantCubin && (userArch == null || !userArch.startsWith("compute_"));
                MemorySegment opts = a.allocate(A, all.size());
                for (int i = 0; i < all.size(); i++) {
                    opts.setAtIndex(A, i, a.allocateFrom(all.get(i)));
                }
                int r = (int) compile.invokeExact(p, all.size(), opts);
                String logText = programLog(a, p);
                if (r != 0) {
                    throw new CompilationException("NVRTC " + version() + " could not compile kernel " + name + " with "
                            + String.join(" ", all) + ": " + errorName(r), logText, errorName(r), r);
                }
                String ptxText = null;
                MemorySegment size = a.allocate(J);
                if ((int) ptxSize.invokeExact(p, size) == 0 && size.get(J, 0) > 1) {
                    MemorySegment buf = a.allocate(size.get(J, 0));
                    if ((int) ptx.invokeExact(p, buf) == 0) {
                        ptxText = buf.getString(0);
                    }
                }
                if (makeCubin) {
                    check((int) cubinSize.invokeExact(p, size), "nvrtcGetCUBINSize");
                    MemorySegment buf = a.allocate(size.get(J, 0));
                    check((int) cubin.invokeExact(p, buf), "nvrtcGetCUBIN");
                    return new Output(buf.toArray(ValueLayout.JAVA_BYTE), true, ptxText, logText);
                }
                if (ptxText == null) {
                    throw new CompilationException("NVRTC produced no PTX for " + name, logText, null, null);
                }
                // Where a cubin was wanted the caller loads the image as it is: PTX then needs its terminating NUL,
                // which the module loader's content detection reads as PTX.
                String image = wantCubin ? ptxText + '\0' : ptxText;
                return new Output(image.getBytes(StandardCharsets.UTF_8), false, ptxText, logText);
            } finally {
                int ignored = (int) destroy.invokeExact(prog);
            }
        } catch (CompilationException e) {
            throw e;
        } catch (Throwable t) {
            throw new CompilationException("NVRTC call failed: " + t, "", null, null);
        }
    }

    private String programLog(Arena a, long p) throws Throwable {
        MemorySegment size = a.allocate(J);
        if ((int) logSize.invokeExact(p, size) != 0 || size.get(J, 0) <= 1) {
            return "";
        }
        MemorySegment buf = a.allocate(size.get(J, 0));
        if ((int) log.invokeExact(p, buf) != 0) {
            return "";
        }
        return buf.getString(0).strip();
    }

    private void check(int r, String call) {
        if (r != 0) {
            throw new CompilationException(call + " failed: " + errorName(r), "", errorName(r), r);
        }
    }

    String errorName(int r) {
        try {
            MemorySegment s = (MemorySegment) errorString.invokeExact(r);
            return s.reinterpret(256).getString(0);
        } catch (Throwable t) {
            return "nvrtcResult " + r;
        }
    }
}
