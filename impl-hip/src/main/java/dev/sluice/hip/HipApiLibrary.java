package dev.sluice.hip;

import dev.sluice.UnsupportedOnBackendException;
import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The loaded HIP runtime ({@code libamdhip64}) and, on first use, hiprtc: library discovery and the downcall
 * handle of every {@link HipApiSymbol}, each looked up the first time it is called. The lowest layer of the
 * backend: {@link HipApi} calls through it and turns status codes into exceptions.
 *
 * <p>Discovery, in order: the file named by the system property {@value #HIP_PROPERTY} (alone, when set);
 * otherwise {@code libamdhip64.so}, {@code .so.6}, {@code .so.5} through the dynamic loader's search path,
 * then the same names in {@code $ROCM_PATH/lib} and {@code /opt/rocm/lib}. hiprtc likewise
 * ({@value #HIPRTC_PROPERTY}, {@code libhiprtc.so*}), falling back to the HIP runtime itself, which
 * exported the hiprtc functions up to HIP 5.2. Every attempt and its outcome is kept for error messages.
 */
final class HipApiLibrary {

    static final String HIP_PROPERTY = dev.sluice.SluiceProperties.HIP_LIBRARY;
    static final String HIPRTC_PROPERTY = dev.sluice.SluiceProperties.HIPRTC_LIBRARY;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final String[] HIP_NAMES = {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"};
    private static final String[] HIPRTC_NAMES = {"libhiprtc.so", "libhiprtc.so.6", "libhiprtc.so.5"};

    /** A library that loaded, with the name or path it loaded from. */
    record Loaded(String name, SymbolLookup lookup) {
    }

    /** Thrown by {@link #load} when no candidate loaded; carries every attempt. */
    static final class NotFound extends Exception {
        final List<String> tried;

        NotFound(String message, List<String> tried) {
            super(message, null, false, false);
            this.tried = List.copyOf(tried);
        }
    }

    private final Loaded hip;
    private final List<String> tried;
    private final @Nullable String hiprtcOverride;
    private final MethodHandle[] handles = new MethodHandle[HipApiSymbol.values().length];
    private volatile @Nullable Loaded hiprtc;
    private volatile @Nullable List<String> hiprtcTried;

    private HipApiLibrary(Loaded hip, List<String> tried, @Nullable String hiprtcOverride) {
        this.hip = hip;
        this.tried = List.copyOf(tried);
        this.hiprtcOverride = hiprtcOverride;
    }

    /** Discovers the HIP runtime as described above, honouring the system properties. */
    static HipApiLibrary load() throws NotFound {
        return load(System.getProperty(HIP_PROPERTY), System.getProperty(HIPRTC_PROPERTY));
    }

    /**
     * Loads the HIP runtime from {@code hipFile} if not null (and only from there), else by discovery; hiprtc
     * later from {@code hiprtcFile} if not null, else by discovery.
     */
    static HipApiLibrary load(@Nullable String hipFile, @Nullable String hiprtcFile) throws NotFound {
        List<String> tried = new ArrayList<>();
        List<String> candidates = hipFile != null && !hipFile.isBlank()
                ? List.of(hipFile)
                : candidates(HIP_NAMES);
        for (String c : candidates) {
            Loaded l = tryLoad(c, tried, hipFile != null && !hipFile.isBlank() ? " (-D" + HIP_PROPERTY + ")" : "");
            if (l != null) {
                List<String> missing = missing(l.lookup(), HipApiSymbol.Lib.HIP);
                if (!missing.isEmpty()) {
                    tried.set(tried.size() - 1, c + ": loaded, but lacks " + missing.size() + " required HIP function(s): "
                            + String.join(", ", missing));
                    continue;
                }
                return new HipApiLibrary(l, tried, hiprtcFile == null || hiprtcFile.isBlank() ? null : hiprtcFile);
            }
        }
        throw new NotFound("the HIP runtime library (libamdhip64) could not be loaded", tried);
    }

    /** Bare names first (the dynamic loader's search path), then the ROCm folders. */
    private static List<String> candidates(String[] names) {
        Set<String> out = new LinkedHashSet<>(List.of(names));
        List<String> dirs = new ArrayList<>();
        String rocm = System.getenv("ROCM_PATH");
        if (rocm != null && !rocm.isBlank()) {
            dirs.add(rocm + "/lib");
        }
        dirs.add("/opt/rocm/lib");
        for (String d : dirs) {
            for (String n : names) {
                out.add(d + "/" + n);
            }
        }
        return List.copyOf(out);
    }

    private static @Nullable Loaded tryLoad(String candidate, List<String> tried, String how) {
        boolean isPath = candidate.indexOf('/') >= 0;
        if (isPath && !Files.exists(Path.of(candidate))) {
            tried.add(candidate + how + ": no such file");
            return null;
        }
        try {
            SymbolLookup lookup = isPath
                    ? SymbolLookup.libraryLookup(Path.of(candidate), Arena.global())
                    : SymbolLookup.libraryLookup(candidate, Arena.global());
            tried.add(candidate + how + ": loaded");
            return new Loaded(candidate, lookup);
        } catch (IllegalArgumentException | IllegalCallerException e) {
            tried.add(candidate + how + ": " + (isPath ? "cannot be loaded" : "not found") + " (" + e.getMessage() + ")");
            return null;
        }
    }

    private static List<String> missing(SymbolLookup lookup, HipApiSymbol.Lib lib) {
        List<String> missing = new ArrayList<>();
        for (HipApiSymbol s : HipApiSymbol.of(lib)) {
            if (!s.optional && lookup.find(s.name()).isEmpty()) {
                missing.add(s.name());
            }
        }
        return missing;
    }

    /** The name or path the HIP runtime loaded from. */
    String hipName() {
        return hip.name();
    }

    /** Every candidate tried for the HIP runtime, and what happened. */
    List<String> tried() {
        return tried;
    }

    /** Where hiprtc was found, loading it if needed. */
    String hiprtcName() {
        return hiprtc().name();
    }

    /** What was tried for hiprtc (empty before the first compilation). */
    List<String> hiprtcTried() {
        List<String> t = hiprtcTried;
        return t == null ? List.of() : t;
    }

    /** Whether {@code symbol} exists in its library (for optional symbols). */
    boolean has(HipApiSymbol symbol) {
        return lookupOf(symbol).find(symbol.name()).isPresent();
    }

    /** The downcall handle of {@code symbol}, created on first use. */
    MethodHandle handle(HipApiSymbol symbol) {
        MethodHandle h = handles[symbol.ordinal()];
        return h != null ? h : resolve(symbol);
    }

    private synchronized MethodHandle resolve(HipApiSymbol symbol) {
        MethodHandle h = handles[symbol.ordinal()];
        if (h != null) {
            return h;
        }
        SymbolLookup lookup = lookupOf(symbol);
        Optional<MemorySegment> address = lookup.find(symbol.name());
        if (address.isEmpty()) {
            String lib = symbol.lib == HipApiSymbol.Lib.HIP ? hip.name() : hiprtcName();
            throw new UnsupportedOnBackendException(symbol.name() + " (not exported by " + lib
                    + (symbol.optional ? ", which predates it" : "") + ") is not supported on hip");
        }
        h = LINKER.downcallHandle(address.get(), symbol.descriptor);
        handles[symbol.ordinal()] = h;
        return h;
    }

    private SymbolLookup lookupOf(HipApiSymbol symbol) {
        return symbol.lib == HipApiSymbol.Lib.HIP ? hip.lookup() : hiprtc().lookup();
    }

    /** hiprtc, found on first use; the HIP runtime itself when it exports the hiprtc functions (HIP 5.2 and earlier). */
    private Loaded hiprtc() {
        Loaded l = hiprtc;
        if (l != null) {
            return l;
        }
        synchronized (this) {
            if (hiprtc != null) {
                return hiprtc;
            }
            List<String> tried = new ArrayList<>();
            List<String> candidates = hiprtcOverride != null ? List.of(hiprtcOverride) : candidates(HIPRTC_NAMES);
            for (String c : candidates) {
                Loaded found = tryLoad(c, tried, hiprtcOverride != null ? " (-D" + HIPRTC_PROPERTY + ")" : "");
                if (found != null) {
                    List<String> missing = missing(found.lookup(), HipApiSymbol.Lib.HIPRTC);
                    if (missing.isEmpty()) {
                        hiprtcTried = List.copyOf(tried);
                        hiprtc = found;
                        return found;
                    }
                    tried.set(tried.size() - 1, c + ": loaded, but lacks " + String.join(", ", missing));
                }
            }
            if (hiprtcOverride == null && missing(hip.lookup(), HipApiSymbol.Lib.HIPRTC).isEmpty()) {
                tried.add(hip.name() + ": exports the hiprtc functions itself (HIP 5.2 and earlier)");
                hiprtcTried = List.copyOf(tried);
                hiprtc = hip;
                return hip;
            }
            hiprtcTried = List.copyOf(tried);
            throw new UnsupportedOnBackendException("run-time compilation (hiprtc) is not supported on hip here: no hiprtc"
                    + " library was found; tried: " + String.join(", ", tried)
                    + ". Install hiprtc (ROCm) or give the kernel a HIP code object");
        }
    }
}
