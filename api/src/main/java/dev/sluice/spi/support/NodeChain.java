package dev.sluice.spi.support;

import dev.sluice.UnsupportedOnBackendException;
import dev.sluice.spi.LaunchArguments;
import dev.sluice.spi.UpdatableGraph;
import dev.sluice.spi.WorkStep;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * What the native backends' {@link UpdatableGraph}s share: a chain of nodes, one per {@link WorkStep}, the step each node
 * runs now, and an update that changes only the nodes whose values changed. A lane's stage on its fixed buffers
 * usually changes none, and then the update makes no native call at all. Updated by one repeated work at a time, under
 * its lock.
 */
public abstract class NodeChain implements UpdatableGraph {

    private static final System.Logger LOG = System.getLogger(NodeChain.class.getName());

    /** What each node runs now. */
    private final WorkStep[] applied;

    /** A chain whose nodes run {@code steps}, in order. */
    protected NodeChain(List<WorkStep> steps) {
        this.applied = steps.toArray(WorkStep[]::new);
    }

    /** How many nodes the chain has. */
    protected final int nodeCount() {
        return applied.length;
    }

    @Override
    public final boolean update(List<WorkStep> steps) {
        int first = 0;
        while (first < applied.length && applied[first].sameValues(steps.get(first))) {
            first++;
        }
        if (first == applied.length) {
            return true;
        }
        beforeUpdate();
        try (Arena arena = Arena.ofConfined()) {
            for (int i = first; i < applied.length; i++) {
                WorkStep s = steps.get(i);
                if (applied[i].sameValues(s)) {
                    continue;
                }
                if (!setNode(i, s, arena)) {
                    // The public layer builds a new graph, whose calls report a lasting error. Said at DEBUG: a work
                    // whose updates the driver keeps refusing builds a graph a call, which only its builds() show.
                    int node = i;
                    LOG.log(System.Logger.Level.DEBUG, () -> this + ": the driver refused to update node " + node
                            + " of " + applied.length + " (" + s.getClass().getSimpleName() + "): a new graph is built");
                    return false;
                }
                applied[i] = s;
            }
            return true;
        } catch (UnsupportedOnBackendException e) {
            return false;
        }
    }

    /**
     * A kernel node's {@code void**} argument array in {@code arena}: each argument of {@code a} in an 8-byte slot of its
     * own (a pointer argument as its device address), as the native backends' launches pass them; never empty, so the
     * array is never {@code NULL}. The drivers copy the values when the node is added or set.
     */
    protected static MemorySegment argumentSlots(Arena arena, LaunchArguments a) {
        int n = a.count();
        MemorySegment values = arena.allocate(8L * Math.max(n, 1), 8);
        MemorySegment pointers = arena.allocate(8L * Math.max(n, 1), 8);
        for (int i = 0; i < n; i++) {
            values.set(ValueLayout.JAVA_LONG, 8L * i, a.isPointer(i) ? a.memory(i).address() + a.byteOffset(i) : a.bits(i));
            pointers.set(ValueLayout.JAVA_LONG, 8L * i, values.address() + 8L * i);
        }
        return pointers;
    }

    /** Called once before the first node of an update is set (to make the context current). */
    protected abstract void beforeUpdate();

    /**
     * Makes node {@code index} run {@code step} in later launches (launches already enqueued run as they were); false if
     * the driver refused.
     *
     * @param arena for the node's parameters, valid during the call
     * @throws UnsupportedOnBackendException for a step no node of this backend describes
     */
    protected abstract boolean setNode(int index, WorkStep step, Arena arena);
}
