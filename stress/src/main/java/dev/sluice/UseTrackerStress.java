package dev.sluice;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.atomic.AtomicBoolean;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * {@link UseTracker}'s claims against a free. One actor enqueues on a buffer as {@link DeviceStream} does: under the
 * stream's lock it claims the memory ({@link UseTracker#claimIfOpen}), marks the operation and notes the use. The other
 * closes the buffer as {@code DeviceBuffer.close()} does: sets {@code closed}, then asks the tracker for the uses the
 * free must wait for ({@link UseTracker#pendingUses}, which {@link UseTracker#whenAllFinished} asks before it frees at
 * once or waits). Nothing advances the stream, so a noted use stays pending.
 *
 * <p>{@code whenAllFinished} itself is not driven: it reaches a use's stream core through its {@link DeviceStream},
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

    private final StreamCore core = StressCores.core(64);
    private final UseTracker uses = new UseTracker();
    private final AtomicBoolean closed = new AtomicBoolean();

    @Actor
    public void enqueue(II_Result r) {
        core.lock();
        try {
            if (uses.claimIfOpen(closed)) {
                DeviceFuture<Void> f = core.mark(null, null, null, null);
                uses.noteUse(core, f);
                r.r1 = 1;
            }
        } finally {
            core.unlock();
        }
    }

    @Actor
    public void close(II_Result r) {
        if (closed.compareAndSet(false, true)) {
            r.r2 = uses.pendingUses(null).size();
        }
    }
}
