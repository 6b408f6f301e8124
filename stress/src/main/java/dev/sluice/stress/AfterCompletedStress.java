package dev.sluice.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.sluice.engine.StreamOrder;
import dev.sluice.engine.StressProbe;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * {@code StreamOrder.afterCompleted} against {@code StreamOrder.advance()}: operation 1 is enqueued (in the state's
 * constructor) with a marker that is already done; one actor registers an action for sequence 1 while the other, as
 * the completion thread, advances the completed sequence past it. The two sides meet through a Dekker handshake:
 * afterCompleted writes the volatile {@code watched} then reads {@code completed}, advance writes {@code completed}
 * then reads {@code watched}, so at least one of them sees the other. The arbiter counts the action's runs, and
 * records which thread ran it (1: the registering one, 2: the completion thread).
 */
@JCStressTest
@Description("An internal action waiting for a sequence (freeing memory after its last use) runs exactly once when "
        + "the completed sequence passes it, on whichever thread comes second.")
@Outcome(id = {"1, 1"}, expect = ACCEPTABLE, desc = "Ran once, at once on the registering thread: the sequence had completed.")
@Outcome(id = {"1, 2"}, expect = ACCEPTABLE, desc = "Ran once, on the completion thread.")
@Outcome(id = {"0, 0"}, expect = FORBIDDEN, desc = "Never ran: memory would never be freed.")
@Outcome(expect = FORBIDDEN, desc = "Ran twice, or anything else.")
@State
public class AfterCompletedStress {

    private final StreamOrder core = StressCores.core(64);
    private final AtomicInteger runs = new AtomicInteger();
    private volatile Thread registering;
    private volatile int ranOn;

    public AfterCompletedStress() {
        StressCores.enqueue(core); // sequence 1, a marker of its own, done
    }

    @Actor
    public void register() {
        registering = Thread.currentThread();
        StressProbe.afterCompleted(core, 1, () -> {
            runs.incrementAndGet();
            ranOn = Thread.currentThread() == registering ? 1 : 2;
        });
    }

    @Actor
    public void advance() {
        StressProbe.advance(core);
    }

    @Arbiter
    public void arbiter(II_Result r) {
        r.r1 = runs.get();
        r.r2 = ranOn;
    }
}
