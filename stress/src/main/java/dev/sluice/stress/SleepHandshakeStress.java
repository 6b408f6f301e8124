package dev.sluice.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.sluice.engine.StressProbe;
import dev.sluice.spi.Marker;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * {@code SleepHandshake} with a stream's {@code CompletionQueue}: an enqueue queues a future and asks whether to wake
 * the completion thread (r1), while the thread settles to sleep and takes its last look at the queue (r2: it found the
 * future and does not park). Both false is a future queued behind a thread that parks and that nobody wakes.
 */
@JCStressTest
@Description("An enqueue that queues a future while the completion thread goes to sleep either wakes the thread or "
        + "is seen by the thread's last look before it parks.")
@Outcome(id = {"true, true"}, expect = ACCEPTABLE, desc = "Both saw each other: a wake-up the thread does not need.")
@Outcome(id = {"true, false"}, expect = ACCEPTABLE, desc = "The thread parks; the enqueue wakes it.")
@Outcome(id = {"false, true"}, expect = ACCEPTABLE, desc = "The thread saw the future and stays awake.")
@Outcome(id = {"false, false"}, expect = FORBIDDEN, desc = "The thread parks with a future queued, and nothing wakes it.")
@State
public class SleepHandshakeStress {

    private final StressProbe.Sleep sleep = new StressProbe.Sleep();

    @Actor
    public void enqueue(ZZ_Result r) {
        r.r1 = sleep.enqueue(StressProbe.operation(1, Marker.DONE, null, null));
    }

    @Actor
    public void goToSleep(ZZ_Result r) {
        r.r2 = sleep.settle();
    }
}
