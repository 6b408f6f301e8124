package dev.sluice.hip;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.jspecify.annotations.Nullable;

/**
 * The on-disk cache of kernels compiled at run time. A compiled image is stored under the SHA-256 of
 * everything that determines it (backend, compiler and runtime versions, device architecture, options,
 * kernel name, source), in {@code <dir>/<api>/<hash>.<ext>}, written to a temporary file and moved into place
 * so that concurrent processes never read half a file. The directory is the system property
 * {@value #PROPERTY} or the environment variable {@code SLUICE_KERNEL_CACHE} ("off" disables the cache),
 * else {@code $XDG_CACHE_HOME/sluice/kernels}, else {@code ~/.cache/sluice/kernels}. Every failure to read or
 * write is ignored: the cache only saves time.
 */
final class KernelCache {

    static final String PROPERTY = "sluice.kernel.cache";
    private static final Logger LOG = Logger.getLogger(KernelCache.class.getName());

    private final @Nullable Path dir;
    private final String extension;

    KernelCache(String api, String extension) {
        this.dir = root() == null ? null : root().resolve(api);
        this.extension = extension;
    }

    static @Nullable Path root() {
        String configured = System.getProperty(PROPERTY);
        if (configured == null || configured.isBlank()) {
            configured = System.getenv("SLUICE_KERNEL_CACHE");
        }
        if (configured != null && !configured.isBlank()) {
            String c = configured.strip().toLowerCase(Locale.ROOT);
            if (c.equals("off") || c.equals("false") || c.equals("none")) {
                return null;
            }
            return Path.of(configured.strip());
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("sluice").resolve("kernels");
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

    @Nullable Path file(String key) {
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
            LOG.log(Level.FINE, "kernel cache read of " + f + " failed", e);
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
                Files.move(tmp, f, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException | UnsupportedOperationException e) {
            LOG.log(Level.FINE, "kernel cache write of " + f + " failed", e);
        }
    }

    void evict(String key) {
        Path f = file(key);
        if (f != null) {
            try {
                Files.deleteIfExists(f);
            } catch (IOException e) {
                LOG.log(Level.FINE, "kernel cache eviction of " + f + " failed", e);
            }
        }
    }
}
