package dev.sluice;

import java.util.List;

/**
 * How a kernel is launched: grid and block dims, optional cluster dims, dynamic shared memory and launch
 * attributes. Immutable; the {@code with*} methods return copies. Validated against the device's limits
 * at {@link DeviceStream#enqueueLaunch}, not here.
 */
public record LaunchConfig(Dim grid, Dim block, Dim cluster, long sharedMemoryBytes, List<LaunchAttribute> attributes) {

    /** Threads per block {@link #forElements(long)} uses: a multiple of every warp and wavefront size. */
    public static final int DEFAULT_BLOCK_SIZE = 256;

    /**
     * A launch as given; the attribute list is copied.
     *
     * @throws InvalidArgumentException naming the argument for a null dim, attribute list or attribute, or a negative
     *                                  shared memory size
     */
    public LaunchConfig {
        Checks.notNull("grid", grid);
        Checks.notNull("block", block);
        Checks.notNull("cluster", cluster);
        if (sharedMemoryBytes < 0) {
            throw new InvalidArgumentException("sharedMemoryBytes", "value " + sharedMemoryBytes + " is negative");
        }
        Checks.notNull("attributes", attributes);
        attributes = List.of(Checks.noNulls("attributes", attributes.toArray(LaunchAttribute[]::new)));
    }

    /**
     * A launch of {@code grid} blocks of {@code block} threads, with no cluster, no dynamic shared memory and no
     * attributes.
     *
     * @throws InvalidArgumentException naming {@code grid} or {@code block} for null
     */
    public static LaunchConfig of(Dim grid, Dim block) {
        return new LaunchConfig(grid, block, Dim.of(1), 0, List.of());
    }

    /**
     * A one-dimensional launch of {@code grid} blocks of {@code block} threads.
     *
     * @throws InvalidArgumentException naming {@code dim} for a size below 1
     */
    public static LaunchConfig of(int grid, int block) {
        return of(Dim.of(grid), Dim.of(block));
    }

    /**
     * A one-dimensional launch covering {@code n} elements: blocks of {@link #DEFAULT_BLOCK_SIZE} threads
     * (fewer if {@code n} is smaller) and ceil(n / block) blocks. Kernels must still check their index
     * against n, since the last block may run past it.
     *
     * @throws InvalidArgumentException naming {@code n} for a value below 1, or one that needs more than
     *                                  {@link Integer#MAX_VALUE} blocks (a grid's x dimension holds no more)
     */
    public static LaunchConfig forElements(long n) {
        if (n < 1) {
            throw new InvalidArgumentException("n", "value " + n + " must be at least 1");
        }
        int block = (int) Math.min(DEFAULT_BLOCK_SIZE, n);
        long grid = n / block + (n % block == 0 ? 0 : 1); // ceil(n / block) without n + block - 1, which overflows
        if (grid > Integer.MAX_VALUE) {
            throw new InvalidArgumentException("n", "value " + n + " needs " + grid + " blocks, more than " + Integer.MAX_VALUE);
        }
        return of(Dim.of((int) grid), Dim.of(block));
    }

    /**
     * This launch with {@code bytes} of dynamic shared memory per block ({@link KernelThread#sharedMemory()} on the
     * CPU backend, {@code extern __shared__} in CUDA C++); beyond the device's per-block limit the launch is refused.
     *
     * @throws InvalidArgumentException naming {@code sharedMemoryBytes} for a negative size
     */
    public LaunchConfig withSharedMemory(long bytes) {
        return new LaunchConfig(grid, block, cluster, bytes, attributes);
    }

    /**
     * This launch with thread-block clusters of {@code clusterDim} blocks (compute capability 9.0 and later; see
     * {@link DeviceAttribute#CLUSTER_LAUNCH}); CUDA requires each grid dimension to be a multiple of the cluster's.
     *
     * @throws InvalidArgumentException naming {@code cluster} for null
     */
    public LaunchConfig withCluster(Dim clusterDim) {
        Checks.notNull("cluster", clusterDim);
        return new LaunchConfig(grid, block, clusterDim, sharedMemoryBytes, attributes);
    }

    /**
     * This launch with {@code launchAttributes} instead of its current attributes (none: no attributes).
     *
     * @throws InvalidArgumentException naming {@code attributes} for a null array or element
     */
    public LaunchConfig withAttributes(LaunchAttribute... launchAttributes) {
        Checks.noNulls("attributes", launchAttributes);
        return new LaunchConfig(grid, block, cluster, sharedMemoryBytes, List.of(launchAttributes));
    }

    /** Whether cluster dims other than (1, 1, 1) were asked for. */
    public boolean hasCluster() {
        return cluster.volume() != 1;
    }
}
