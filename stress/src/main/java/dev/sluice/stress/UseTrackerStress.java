package dev.sluice.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.sluice.engine.StreamOrder;
import dev.sluice.engine.StressProbe;
import java.util.concurrent.atomic.AtomicBoolean;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * {@code UseTracker}'s claims against a free. One actor enqueues on a buffer as {@code DeviceStream} does: under the
 * stream's lock it claims the memory ({@code UseTracker.claimIfOpen}), marks the operation and notes the use. The other
 * closes the buffer as {@code DeviceBuffer.close()} does: sets {@code closed}, then asks the tracker for the uses the
 * free must wait for ({@code UseTracker.pendingUses}, which {@code UseTracker.whenAllFinished} asks before it frees at
 * once or waits). Nothing advances the stream, so a noted use stays pending.
 *
 * <p>{@code whenAllFinished} itself is not driven: it reaches a use's stream core through its {@code DeviceStream},
 * which needs a whole context; the decision it frees by is {@code pendingUses}' answer, checked here.
 */
@JCStressTest
@Description("A free never misses an enqueue that claimed the memory: either the enqueue sees the buffer closed, or "
        + "the free sees its use pending and waits for it.")
@Outcome(id = {"0, 0"}, expect = ACCEPTABLE, desc = "The enqueue saw the buffer closed; nothing to wait for: freed at once.")
@Outcome(id = {"1, 1"}, expect = ACCEPTABLE, desc = "The enqueue claimed it; the free sees its use pending.")
@Outcome(id = {"1, 0"}, expect = FORBIDDEN, desc = "The enqueue claimed it, yet the free sees no pending use: freed under the device.")
@Outcome(expect = FORBIDDEN, desc = "A use noted without a claim, or anything else.")
@State
public class UseTrackerStress {

    private final StreamOrder core = StressCores.core(64);
    private final StressProbe.Uses uses = new StressProbe.Uses();

    @Actor
    public void enqueue(II_Result r) {
        if (uses.enqueue(core)) {
            r.r1 = 1;
        }
    }

    @Actor
    public void close(II_Result r) {
        int pending = uses.close();
        if (pending >= 0) {
            r.r2 = pending;
        }
    }
}
