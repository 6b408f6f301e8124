package dev.sluice.spi.support;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KernelCacheTest {

    @TempDir
    Path dir;
    private String beforeDir;
    private String beforeDisabled;

    @BeforeEach
    void pointCacheAtTempDir() {
        beforeDir = System.getProperty("sluice.cache.dir");
        beforeDisabled = System.getProperty("sluice.cache.disabled");
        System.setProperty("sluice.cache.dir", dir.toString());
        System.clearProperty("sluice.cache.disabled");
    }

    @AfterEach
    void restoreProperties() {
        restore("sluice.cache.dir", beforeDir);
        restore("sluice.cache.disabled", beforeDisabled);
    }

    private static void restore(String key, String value) {
        if (value == null) {
            System.clearProperty(key);
        } else {
            System.setProperty(key, value);
        }
    }

    @Test
    void keyDependsOnEveryPartAndWherePartsSplit() {
        String k = KernelCache.key(List.of("k", "src", "-O3"));
        assertEquals(64, k.length());
        assertEquals(k, KernelCache.key(List.of("k", "src", "-O3")));
        assertNotEquals(k, KernelCache.key(List.of("k", "src", "-O2")));
        assertNotEquals(k, KernelCache.key(List.of("ks", "rc", "-O3")), "moving text between parts changes the key");
        assertNotEquals(k, KernelCache.key(List.of("k", "src")));
    }

    @Test
    void putThenGetReadsBackUnderTheApisFolderAndLeavesNoTemporaryFile() throws Exception {
        KernelCache cache = new KernelCache("cuda");
        cache.put("abc", "ptx", new byte[] {1, 2, 3});
        assertArrayEquals(new byte[] {1, 2, 3}, cache.get("abc", "ptx"));
        assertNull(cache.get("abc", "cubin"), "another extension is another entry");
        try (var files = Files.list(dir.resolve("cuda"))) {
            assertEquals(List.of(dir.resolve("cuda").resolve("abc.ptx")), files.toList());
        }
        assertNull(new KernelCache("hip").get("abc", "ptx"), "each API has its own folder");
    }

    @Test
    void evictDeletesTheEntry() {
        KernelCache cache = new KernelCache("hip");
        cache.put("k", "hsaco", new byte[] {7});
        cache.evict("k", "hsaco");
        assertNull(cache.get("k", "hsaco"));
    }

    @Test
    void disabledCacheNeitherReadsNorWrites() {
        KernelCache cache = new KernelCache("cuda");
        cache.put("k", "ptx", new byte[] {1});
        System.setProperty("sluice.cache.disabled", "true");
        assertNull(cache.directory());
        assertNull(cache.get("k", "ptx"));
        cache.put("k2", "ptx", new byte[] {1});
        System.clearProperty("sluice.cache.disabled");
        assertNull(cache.get("k2", "ptx"));
    }

    @Test
    void anUnwritableFolderOnlyDisablesCaching() throws Exception {
        Path file = dir.resolve("not-a-folder");
        Files.writeString(file, "x");
        System.setProperty("sluice.cache.dir", file.toString());
        KernelCache cache = new KernelCache("cuda");
        cache.put("k", "ptx", new byte[] {1}); // logged, not thrown
        assertNull(cache.get("k", "ptx"));
    }

    @Test
    void apiMustBeOnePathElement() {
        var e = assertThrows(IllegalArgumentException.class, () -> new KernelCache("../x"));
        assertTrue(e.getMessage().contains("../x"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new KernelCache(" "));
    }
}
