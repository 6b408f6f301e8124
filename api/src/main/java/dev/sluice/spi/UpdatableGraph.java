package dev.sluice.spi;

import java.util.List;

/**
 * An executable graph built from {@link WorkStep}s ({@link ContextHandle#buildGraph}) whose steps' values can be changed
 * between launches: CUDA's {@code cuGraphExec*NodeSetParams}, HIP's {@code hipGraphExec*NodeSetParams}. Used by one
 * stream's repeated work at a time, under that stream's lock.
 */
public interface UpdatableGraph extends GraphHandle {

    /**
     * Makes the graph's later launches run {@code steps}, which have the same shape as the steps it was built or last
     * updated with ({@link WorkStep#sameShape}, step by step); launches already enqueued run as they were. Returns
     * false, with the graph unchanged or unusable, if the backend cannot make the change: the public layer then destroys
     * it and builds a new one.
     */
    boolean update(List<WorkStep> steps);
}
