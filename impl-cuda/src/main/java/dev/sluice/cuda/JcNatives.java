package dev.sluice.cuda;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

/**
 * JCuda's native driver binding ({@code libJCudaDriver}) for the running platform: whether it can be found,
 * asked before JCuda tries to load it, so that a platform for which JCuda publishes no natives jar gets a message
 * naming what is missing instead of JCuda's {@link UnsatisfiedLinkError}.
 *
 * <p>JCuda {@value #PUBLISHED_NOTE}. sluice-cuda depends on {@code org.jcuda:jcuda-natives} only there (see its POM);
 * elsewhere it builds and runs, and the CUDA backend reports itself unavailable with {@link #missing}'s reason.
 */
final class JcNatives {

    static final String PUBLISHED_NOTE = "publishes native jars for linux-x86_64 and windows-x86_64 only";

    /** The JCuda version sluice-cuda was built against (from the build, {@code jcuda.version}). */
    static final String VERSION = readVersion();

    private JcNatives() {
    }

    /** JCuda's name for an operating system: linux, apple, windows, or the name in lower case. */
    static String os(String osName) {
        String n = osName.toLowerCase(Locale.ROOT);
        if (n.startsWith("mac") || n.startsWith("darwin")) {
            return "apple";
        }
        if (n.startsWith("windows")) {
            return "windows";
        }
        if (n.startsWith("linux")) {
            return "linux";
        }
        return n.replace(' ', '_');
    }

    /** JCuda's name for an architecture: x86_64, aarch64, ppc_64, or the name in lower case. */
    static String arch(String osArch) {
        String a = osArch.toLowerCase(Locale.ROOT);
        return switch (a) {
            case "amd64", "x86_64", "x64" -> "x86_64";
            case "aarch64", "arm64" -> "aarch64";
            case "ppc64le", "ppc64" -> "ppc_64";
            default -> a;
        };
    }

    /** The platform as JCuda's natives jars name it in their classifier, such as {@code linux-x86_64}. */
    static String platform(String osName, String osArch) {
        return os(osName) + "-" + arch(osArch);
    }

    /** The file name of the driver binding JCuda looks for, such as {@code libJCudaDriver-12.6.0-linux-x86_64.so}. */
    static String fileName(String osName, String osArch) {
        String os = os(osName);
        String prefix = os.equals("windows") ? "" : "lib";
        String ext = switch (os) {
            case "windows" -> "dll";
            case "apple" -> "dylib";
            default -> "so";
        };
        return prefix + "JCudaDriver-" + VERSION + "-" + platform(osName, osArch) + "." + ext;
    }

    /** Whether JCuda {@value #VERSION} has a natives jar on Maven Central for {@code platform}. */
    static boolean published(String platform) {
        return platform.equals("linux-x86_64") || platform.equals("windows-x86_64");
    }

    /**
     * Why JCuda's driver binding cannot load on this platform, naming the missing piece; {@code null} when it is on
     * the class path (JCuda's natives jar) or a {@code libJCudaDriver} file is in {@code libraryPath}.
     *
     * @param osName      the {@code os.name} to consider
     * @param osArch      the {@code os.arch} to consider
     * @param loader      where JCuda looks for its natives jar's {@code lib/} resource
     * @param libraryPath the {@code java.library.path} JCuda falls back to
     */
    static @Nullable String missing(String osName, String osArch, @Nullable ClassLoader loader, String libraryPath) {
        String file = fileName(osName, osArch);
        ClassLoader l = loader != null ? loader : ClassLoader.getSystemClassLoader();
        if (l.getResource("lib/" + file) != null) {
            return null;
        }
        for (String dir : libraryPath.split(File.pathSeparator)) {
            File[] found = dir.isBlank() ? null : new File(dir).listFiles((d, n) -> n.contains("JCudaDriver"));
            if (found != null && found.length > 0) {
                return null;
            }
        }
        String platform = platform(osName, osArch);
        String natives = "org.jcuda:jcuda-natives:" + VERSION + ":" + platform;
        if (published(platform)) {
            return "JCuda's native driver binding " + file + " is not on the class path: add the dependency " + natives
                    + " (sluice-cuda brings it on " + platform + " unless it was excluded)";
        }
        return "JCuda " + VERSION + " has no native driver binding for " + platform + ": JCuda " + PUBLISHED_NOTE
                + ", so " + natives + " does not exist and " + file + " is neither on the class path nor in"
                + " java.library.path. Build JCuda's natives for " + platform + " and put " + file
                + " in java.library.path, or use the HIP or CPU backend";
    }

    private static String readVersion() {
        Properties p = new Properties();
        try (InputStream in = JcNatives.class.getResourceAsStream("jcuda.properties")) {
            if (in == null) {
                throw new IllegalStateException("dev/sluice/cuda/jcuda.properties is missing from sluice-cuda's jar");
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("reading dev/sluice/cuda/jcuda.properties", e);
        }
        return p.getProperty("jcuda.version", "unknown");
    }
}
