package dev.sluice.engine;

import dev.sluice.spi.GraphHandle;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * What a stream's capture collects while its work is recorded into a graph instead of run: the memory the captured
 * operations use (a replay claims it as they would have), the events and functions they name (kept until each replay
 * has run), and their host steps. Under the stream's lock.
 */
final class GraphCapture {

    /**
     * Memory a captured operation used: a replay claims it (refused once it is closed) and notes its use.
     *
     * @param what    the buffer, named if it closed before a replay
     * @param ordered whether automatic ordering applies to it
     */
    record Use(UseTracker uses, AtomicBoolean closed, @Nullable PublicMemory what, boolean ordered) {
    }

    private final Map<UseTracker, Use> uses = new LinkedHashMap<>();
    private final Set<Object> handles = new HashSet<>();
    private @Nullable GraphHostSteps steps;

    void used(UseTracker tracker, AtomicBoolean closed, @Nullable PublicMemory what, boolean ordered) {
        uses.putIfAbsent(tracker, new Use(tracker, closed, what, ordered));
    }

    void keep(Object handle) {
        handles.add(handle);
    }

    GraphHostSteps hostSteps(ContextState context) {
        GraphHostSteps s = steps;
        if (s == null) {
            s = new GraphHostSteps(context);
            steps = s;
        }
        return s;
    }

    CapturedGraph graph(ContextState context, GraphHandle graph) {
        return new CapturedGraph(context, graph, List.copyOf(uses.values()), List.copyOf(handles), steps);
    }
}
