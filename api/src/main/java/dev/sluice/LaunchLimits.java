package dev.sluice;

/** The device limits a launch is checked against, read once when the context opens. */
record LaunchLimits(int maxThreadsPerBlock, Dim maxBlock, Dim maxGrid, long maxSharedMemory, long maxSharedMemoryOptIn,
        boolean clusters) {

    /** The largest cluster, in blocks, that every cluster-capable device accepts. */
    static final int MAX_PORTABLE_CLUSTER_SIZE = 8;

    void check(LaunchConfig config, DeviceContext context) {
        Dim b = config.block();
        Dim g = config.grid();
        checkDim("block", b, maxBlock);
        checkDim("grid", g, maxGrid);
        if (b.volume() > maxThreadsPerBlock) {
            throw new InvalidArgumentException("block", b + " has " + b.volume() + " threads, more than the device's "
                    + maxThreadsPerBlock + " per block");
        }
        if (config.sharedMemoryBytes() > maxSharedMemoryOptIn) {
            throw new InvalidArgumentException("sharedMemoryBytes", "value " + config.sharedMemoryBytes()
                    + " exceeds the device's limit of " + maxSharedMemoryOptIn + " bytes per block");
        }
        if (config.hasCluster()) {
            Dim c = config.cluster();
            if (!clusters) {
                throw new UnsupportedOnBackendException("thread-block clusters (cluster dims " + c + ") are not supported by "
                        + context.name() + " on " + context.backendName());
            }
            if (c.volume() > MAX_PORTABLE_CLUSTER_SIZE) {
                throw new InvalidArgumentException("cluster", c + " has " + c.volume() + " blocks, more than the portable "
                        + MAX_PORTABLE_CLUSTER_SIZE);
            }
            if (g.x() % c.x() != 0 || g.y() % c.y() != 0 || g.z() % c.z() != 0) {
                throw new InvalidArgumentException("cluster", c + " does not divide grid " + g);
            }
        }
    }

    private static void checkDim(String name, Dim d, Dim max) {
        if (d.x() > max.x() || d.y() > max.y() || d.z() > max.z()) {
            throw new InvalidArgumentException(name, d + " exceeds the device's limit of " + max);
        }
    }
}
