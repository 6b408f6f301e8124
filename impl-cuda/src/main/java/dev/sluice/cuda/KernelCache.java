package dev.sluice.cuda;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import org.jspecify.annotations.Nullable;

/**
 * The on-disk cache of NVRTC output, keyed by a SHA-256 of the kernel's name, source, options, target
 * architecture and NVRTC version. The folder is {@code sluice.cache.dir} (default {@code ~/.cache/sluice})
 * plus {@code /cuda}; {@code -Dsluice.cache.disabled=true} turns it off. Writes go to a temporary file in the
 * same folder and are moved into place atomically, so two processes compiling the same kernel at once never
 * read a partial file (the last move wins, with identical content). Any I/O failure only disables caching
 * for that kernel.
 */
final class KernelCache {

    private static final Logger LOG = System.getLogger(KernelCache.class.getName());

    private KernelCache() {
    }

    static @Nullable Path directory() {
        if (Boolean.getBoolean(dev.sluice.SluiceProperties.CACHE_DISABLED)) {
            return null;
        }
        String dir = System.getProperty(dev.sluice.SluiceProperties.CACHE_DIR);
        Path base = dir != null && !dir.isBlank() ? Path.of(dir) : Path.of(System.getProperty("user.home"), ".cache", "sluice");
        return base.resolve("cuda");
    }

    static String key(String name, String source, List<String> options, String arch, String nvrtcVersion, String form) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            for (String part : List.of(name, source, String.join("\u0001", options), arch, nvrtcVersion, form)) {
                d.update(part.getBytes(StandardCharsets.UTF_8));
                d.update((byte) 0);
            }
            return HexFormat.of().formatHex(d.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static byte @Nullable [] read(String key, String extension) {
        Path dir = directory();
        if (dir == null) {
            return null;
        }
        Path f = dir.resolve(key + "." + extension);
        try {
            return Files.exists(f) ? Files.readAllBytes(f) : null;
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "kernel cache read of " + f + " failed", e);
            return null;
        }
    }

    static void write(String key, String extension, byte[] data) {
        Path dir = directory();
        if (dir == null) {
            return;
        }
        Path target = dir.resolve(key + "." + extension);
        Path tmp = null;
        try {
            Files.createDirectories(dir);
            tmp = Files.createTempFile(dir, key, ".tmp");
            Files.write(tmp, data);
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
            tmp = null;
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.DEBUG, "kernel cache write of " + target + " failed", e);
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // best effort
                }
            }
        }
    }
}
