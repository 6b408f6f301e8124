package dev.sluice;

import java.util.List;
import java.util.Objects;

/**
 * How a kernel is launched: grid and block dims, optional cluster dims, dynamic shared memory and launch
 * attributes. Immutable; the {@code with*} methods return copies. Validated against the device's limits
 * at {@link DeviceStream#enqueueLaunch}, not here.
 */
public record LaunchConfig(Dim grid, Dim block, Dim cluster, long sharedMemoryBytes, List<LaunchAttribute> attributes) {

    /** Threads per block {@link #forElements(long)} uses: a multiple of every warp and wavefront size. */
    public static final int DEFAULT_BLOCK_SIZE = 256;

    public LaunchConfig {
        Objects.requireNonNull(grid, "grid");
        Objects.requireNonNull(block, "block");
        Objects.requireNonNull(cluster, "cluster");
        if (sharedMemoryBytes < 0) {
            throw new InvalidArgumentException("sharedMemoryBytes", "value " + sharedMemoryBytes + " is negative");
        }
        attributes = List.copyOf(attributes);
    }

    public static LaunchConfig of(Dim grid, Dim block) {
        return new LaunchConfig(grid, block, Dim.of(1), 0, List.of());
    }

    public static LaunchConfig of(int grid, int block) {
        return of(Dim.of(grid), Dim.of(block));
    }

    /**
     * A one-dimensional launch covering {@code n} elements: blocks of {@link #DEFAULT_BLOCK_SIZE} threads
     * (fewer if {@code n} is smaller) and ceil(n / block) blocks. Kernels must still check their index
     * against n, since the last block may run past it.
     */
    public static LaunchConfig forElements(long n) {
        if (n < 1) {
            throw new InvalidArgumentException("n", "value " + n + " must be at least 1");
        }
        int block = (int) Math.min(DEFAULT_BLOCK_SIZE, n);
        long grid = (n + block - 1) / block;
        if (grid > Integer.MAX_VALUE) {
            throw new InvalidArgumentException("n", "value " + n + " needs " + grid + " blocks, more than " + Integer.MAX_VALUE);
        }
        return of(Dim.of((int) grid), Dim.of(block));
    }

    public LaunchConfig withSharedMemory(long bytes) {
        return new LaunchConfig(grid, block, cluster, bytes, attributes);
    }

    public LaunchConfig withCluster(Dim clusterDim) {
        return new LaunchConfig(grid, block, clusterDim, sharedMemoryBytes, attributes);
    }

    public LaunchConfig withAttributes(LaunchAttribute... launchAttributes) {
        return new LaunchConfig(grid, block, cluster, sharedMemoryBytes, List.of(launchAttributes));
    }

    /** Whether cluster dims other than (1, 1, 1) were asked for. */
    public boolean hasCluster() {
        return cluster.volume() != 1;
    }
}
