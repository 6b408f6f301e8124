package dev.sluice;

/** Compute capability (CUDA: 9.0 for Hopper; HIP: the gfx major/minor; CPU: 0.0). */
public record ComputeCapability(int major, int minor) implements Comparable<ComputeCapability> {

    @Override
    public int compareTo(ComputeCapability o) {
        return major != o.major ? Integer.compare(major, o.major) : Integer.compare(minor, o.minor);
    }

    @Override
    public String toString() {
        return major + "." + minor;
    }
}
