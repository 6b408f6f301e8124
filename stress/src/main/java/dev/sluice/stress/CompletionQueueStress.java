package dev.sluice.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.sluice.engine.Operation;
import dev.sluice.engine.StreamOrder;
import dev.sluice.engine.StressProbe;
import dev.sluice.spi.Marker;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * {@code CompletionQueue}: an enqueuing thread builds two futures and adds them, as {@code StreamOrder}'s publish does
 * under the stream's lock (its plain {@code keepAlive} written first); the completion thread polls twice. Each result
 * is 0 for an empty poll, the future's sequence if every field it reads is the one written before the future was added,
 * -1 if any is not.
 */
@JCStressTest
@Description("A future the completion thread takes from its stream's queue is complete: its sequence, value, marker "
        + "and the plain keepAlive written before it was added (published by the release of add), and futures come "
        + "out in the order they were added, each once.")
@Outcome(id = {"0, 0"}, expect = ACCEPTABLE, desc = "Polled before anything was added.")
@Outcome(id = {"1, 0"}, expect = ACCEPTABLE, desc = "Took the first future; the second was not added yet.")
@Outcome(id = {"0, 1"}, expect = ACCEPTABLE, desc = "The first poll found nothing, the second took the first future.")
@Outcome(id = {"1, 2"}, expect = ACCEPTABLE, desc = "Took both futures, in order.")
@Outcome(expect = FORBIDDEN, desc = "A partly built future (-1), a future out of order, or one taken twice.")
@State
public class CompletionQueueStress {

    private static final Object[] VALUES = {null, "value 1", "value 2"};
    private static final Object[] KEPT = {null, new Object(), new Object()};

    private final StressProbe.Queue queue = new StressProbe.Queue();

    @Actor
    public void enqueue() {
        for (int seq = 1; seq <= 2; seq++) {
            queue.add(StressProbe.operation(seq, Marker.DONE, VALUES[seq], KEPT[seq]));
        }
    }

    @Actor
    public void complete(II_Result r) {
        r.r1 = check(queue.poll());
        r.r2 = check(queue.poll());
    }

    private static int check(Operation<?> f) {
        if (f == null) {
            return 0;
        }
        long seq = StressProbe.sequence(f);
        if (seq != 1 && seq != 2) {
            return -1;
        }
        int i = (int) seq;
        return StressProbe.value(f) == VALUES[i] && StressProbe.keepAlive(f) == KEPT[i]
                && StressProbe.marker(f) == Marker.DONE ? i : -1;
    }
}
