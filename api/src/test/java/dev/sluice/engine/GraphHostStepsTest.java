package dev.sluice.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.sluice.Api;
import dev.sluice.DeviceContext;
import dev.sluice.EngineAccess;
import dev.sluice.FakeDevices;
import dev.sluice.SluiceException;
import dev.sluice.spi.GraphHandle;
import dev.sluice.spi.StreamHandle;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How captured host steps find their replay, driven as a driver drives host nodes: the test launches replays through
 * a fake native graph and calls the steps itself, in the order a driver would.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class GraphHostStepsTest {

    private static final StreamHandle STREAM = (StreamHandle) Proxy.newProxyInstance(
            GraphHostStepsTest.class.getClassLoader(), new Class<?>[] {StreamHandle.class}, (p, m, a) -> null);

    private final DeviceContext ctx = FakeDevices.open(Api.CUDA, n -> STREAM);
    private final ContextRuntime core = EngineAccess.core(ctx);

    /** A native graph that launches nothing and counts its destruction. */
    private static final class FakeGraph implements GraphHandle {
        final AtomicInteger launches = new AtomicInteger();
        final AtomicInteger destroyed = new AtomicInteger();
        volatile boolean refuseNextLaunch;

        @Override
        public void launch(StreamHandle stream) {
            if (refuseNextLaunch) {
                refuseNextLaunch = false;
                throw new SluiceException("refused launch (test)");
            }
            launches.incrementAndGet();
        }

        @Override
        public void destroy() {
            destroyed.incrementAndGet();
        }
    }

    @AfterEach
    void close() {
        ctx.close();
    }

    @Test
    void eachStepFailsTheOldestReplayThatHasNotRunAllItsSteps() {
        GraphHostSteps steps = new GraphHostSteps(core);
        RuntimeException first = new IllegalStateException("first replay, first step");
        RuntimeException second = new IllegalStateException("second replay, second step");
        AtomicInteger calls = new AtomicInteger();
        Runnable a = steps.hostFunction(() -> {
            if (calls.incrementAndGet() == 1) {
                throw first;
            }
        });
        Runnable b = steps.hostFunction(() -> {
            if (calls.incrementAndGet() == 4) {
                throw second;
            }
        });
        FakeGraph g = new FakeGraph();
        GraphHostSteps.Replay r1 = new GraphHostSteps.Replay();
        GraphHostSteps.Replay r2 = new GraphHostSteps.Replay();
        steps.launching(g, r1).launch(STREAM);
        steps.launching(g, r2).launch(STREAM); // both launched before either runs, as with replays queued on a stream
        a.run();
        b.run();
        a.run();
        b.run();
        assertSame(first, r1.failure());
        assertSame(second, r2.failure());
    }

    @Test
    void aRefusedNativeLaunchLeavesNoReplayBehind() {
        GraphHostSteps steps = new GraphHostSteps(core);
        RuntimeException thrown = new IllegalStateException("step");
        Runnable a = steps.hostFunction(() -> {
            throw thrown;
        });
        FakeGraph g = new FakeGraph();
        GraphHostSteps.Replay refused = new GraphHostSteps.Replay();
        GraphHostSteps.Replay launched = new GraphHostSteps.Replay();
        g.refuseNextLaunch = true;
        assertThrows(SluiceException.class, () -> steps.launching(g, refused).launch(STREAM));
        steps.launching(g, launched).launch(STREAM);
        a.run();
        assertNull(refused.failure());
        assertSame(thrown, launched.failure());
    }

    @Test
    void aGraphClosedWhileAReplayRunsItsStepsIsDestroyedAfterTheLastStep() throws Exception {
        GraphHostSteps steps = new GraphHostSteps(core);
        Runnable a = steps.hostFunction(() -> { });
        Runnable b = steps.hostFunction(() -> { });
        FakeGraph nativeGraph = new FakeGraph();
        CapturedGraph graph = new CapturedGraph(core, nativeGraph, List.of(), List.of(), steps);
        steps.launching(nativeGraph, new GraphHostSteps.Replay()).launch(STREAM);
        graph.close();
        a.run();
        assertEquals(0, nativeGraph.destroyed.get(), "not destroyed while a replay still has a step to run");
        b.run();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (nativeGraph.destroyed.get() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(5); // destroyed on the host executor: a host node may not call the driver
        }
        assertEquals(1, nativeGraph.destroyed.get());
    }

    @Test
    void aGraphClosedWithNoReplayRunningIsDestroyedAtOnce() {
        GraphHostSteps steps = new GraphHostSteps(core);
        steps.hostFunction(() -> { });
        FakeGraph nativeGraph = new FakeGraph();
        new CapturedGraph(core, nativeGraph, List.of(), List.of(), steps).close();
        assertEquals(1, nativeGraph.destroyed.get());
    }
}
