package dev.sluice;

/**
 * Stream priorities a device accepts. As in CUDA, lower numbers are higher priority: {@code greatest}
 * is numerically at most {@code least}.
 */
public record PriorityRange(int least, int greatest) {

    /** Whether {@code priority} lies within this range. */
    public boolean contains(int priority) {
        return priority <= least && priority >= greatest;
    }
}
