package dev.sluice.hip;

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
 * The on-disk cache of kernels compiled at run time, in the same scheme as the CUDA backend's: the folder is
 * the system property {@code sluice.cache.dir} (default {@code ~/.cache/sluice}) plus {@code /<api>}
 * ({@code /hip} here), {@code -Dsluice.cache.disabled=true} turns it off, and a compiled image is stored as
 * {@code <sha256>.<ext>}, the hash taken over everything that determines it (compiler and runtime versions,
 * device architecture, options, kernel name, source). Writes go to a temporary file moved into place, so
 * concurrent processes never read half a file. Every failure to read or write is ignored: the cache only
 * saves time. (Kept in impl-hip rather than shared through the SPI, so the two backends stay independent.)
 */
final class KernelCache {

    private static final Logger LOG = System.getLogger(KernelCache.class.getName());

    private final String api;
    private final String extension;

    KernelCache(String api, String extension) {
        this.api = api;
        this.extension = extension;
    }

    @Nullable Path directory() {
        if (Boolean.getBoolean(dev.sluice.SluiceProperties.CACHE_DISABLED)) {
            return null;
        }
        String dir = System.getProperty(dev.sluice.SluiceProperties.CACHE_DIR);
        Path base = dir != null && !dir.isBlank() ? Path.of(dir) : Path.of(System.getProperty("user.home"), ".cache", "sluice");
        return base.resolve(api);
    }

    /** The key of a compilation: the hex SHA-256 of the parts, each followed by a NUL. */
    static String key(List<String> parts) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            for (String p : parts) {
                d.update(p.getBytes(StandardCharsets.UTF_8));
                d.update((byte) 0);
            }
            return HexFormat.of().formatHex(d.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The hex SHA-256 of {@code bytes}. */
    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Nullable Path file(String key) {
        Path dir = directory();
        return dir == null ? null : dir.resolve(key + "." + extension);
    }

    byte @Nullable [] get(String key) {
        Path f = file(key);
        if (f == null || !Files.isRegularFile(f)) {
            return null;
        }
        try {
            return Files.readAllBytes(f);
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "kernel cache read of " + f + " failed", e);
            return null;
        }
    }

    void put(String key, byte[] image) {
        Path f = file(key);
        if (f == null) {
            return;
        }
        try {
            Files.createDirectories(f.getParent());
            Path tmp = Files.createTempFile(f.getParent(), key, ".tmp");
            try {
                Files.write(tmp, image);
                try {
                    Files.move(tmp, f, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException | UnsupportedOperationException e) {
            LOG.log(Level.DEBUG, "kernel cache write of " + f + " failed", e);
        }
    }

    void evict(String key) {
        Path f = file(key);
        if (f != null) {
            try {
                Files.deleteIfExists(f);
            } catch (IOException e) {
                LOG.log(Level.DEBUG, "kernel cache eviction of " + f + " failed", e);
            }
        }
    }
}
