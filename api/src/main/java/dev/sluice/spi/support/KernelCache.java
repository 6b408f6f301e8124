package dev.sluice.spi.support;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The on-disk cache of kernels compiled at run time, one folder per native API. The folder is the system property
 * {@code sluice.cache.dir} (default {@code ~/.cache/sluice}) plus {@code /<api>}; {@code -Dsluice.cache.disabled=true}
 * turns the cache off. An entry is {@code <key>.<extension>}, the key a SHA-256 over everything that determines the
 * compiled image ({@link #key}). Writes go to a temporary file in the same folder moved into place atomically, so two
 * processes compiling the same kernel at once never read half a file (the last move wins, with identical content).
 * Every failure to read or write only disables caching for that entry: the cache saves time, never correctness.
 *
 * <p>For backend authors: the CUDA backend caches NVRTC output here, the HIP backend hiprtc output. Thread-safe; every
 * method runs on the calling thread and may block on file I/O.
 */
public final class KernelCache {

    private static final Logger LOG = System.getLogger(KernelCache.class.getName());

    private final String api;

    /**
     * @param api the native API's folder name under the cache directory ({@code "cuda"}, {@code "hip"}); one path
     *            element, no separators
     * @throws IllegalArgumentException if {@code api} is blank or contains a path separator
     */
    public KernelCache(String api) {
        Objects.requireNonNull(api, "api");
        if (api.isBlank() || api.contains("/") || api.contains("\\") || api.equals("..")) {
            throw new IllegalArgumentException("api \"" + api + "\" must be one non-blank path element");
        }
        this.api = api;
    }

    /** The cache folder now (the system properties are read on every call), or null when caching is disabled. */
    public @Nullable Path directory() {
        if (Boolean.getBoolean(dev.sluice.SluiceProperties.CACHE_DISABLED)) {
            return null;
        }
        String dir = System.getProperty(dev.sluice.SluiceProperties.CACHE_DIR);
        Path base = dir != null && !dir.isBlank() ? Path.of(dir) : Path.of(System.getProperty("user.home"), ".cache", "sluice");
        return base.resolve(api);
    }

    /**
     * The key of a compilation: the hex SHA-256 of {@code parts}, each followed by a NUL byte, so that moving text
     * from one part to the next changes the key.
     */
    public static String key(List<String> parts) {
        MessageDigest d = sha256();
        for (String p : parts) {
            d.update(p.getBytes(StandardCharsets.UTF_8));
            d.update((byte) 0);
        }
        return HexFormat.of().formatHex(d.digest());
    }

    /** The hex SHA-256 of {@code bytes}. */
    public static String sha256(byte[] bytes) {
        return HexFormat.of().formatHex(sha256().digest(bytes));
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    /** The file of entry {@code key} with {@code extension}, or null when caching is disabled. */
    public @Nullable Path file(String key, String extension) {
        Path dir = directory();
        return dir == null ? null : dir.resolve(key + "." + extension);
    }

    /** The cached bytes of {@code key.extension}, or null if absent, unreadable or caching is disabled. */
    public byte @Nullable [] get(String key, String extension) {
        Path f = file(key, extension);
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

    /** Stores {@code data} as {@code key.extension}, replacing what was there; failures are logged and ignored. */
    public void put(String key, String extension, byte[] data) {
        Path f = file(key, extension);
        if (f == null) {
            return;
        }
        Path tmp = null;
        try {
            Files.createDirectories(f.getParent());
            tmp = Files.createTempFile(f.getParent(), key, ".tmp");
            Files.write(tmp, data);
            try {
                Files.move(tmp, f, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING);
            }
            tmp = null;
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.DEBUG, "kernel cache write of " + f + " failed", e);
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException ignored) {
                    // a stray temporary file only takes space; the next write makes another
                }
            }
        }
    }

    /** Deletes {@code key.extension} (a stale or foreign entry the driver refused); failures are logged and ignored. */
    public void evict(String key, String extension) {
        Path f = file(key, extension);
        if (f != null) {
            try {
                Files.deleteIfExists(f);
            } catch (IOException e) {
                LOG.log(Level.DEBUG, "kernel cache eviction of " + f + " failed", e);
            }
        }
    }

    @Override
    public String toString() {
        return "KernelCache[" + api + "]";
    }
}
