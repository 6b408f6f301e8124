package dev.sluice.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.sluice.spi.support.CompletionCounters;
import dev.sluice.spi.support.PinnedMemory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * A stream's completion counter ({@code CompletionCounters}) read by a poller while "the device" writes it. The device
 * actor stands in for a download followed by the marker stream's fenced {@code cuStreamWriteValue32}: it writes a
 * result (a plain store), then marker numbers 2<sup>32</sup>-1 and 2<sup>32</sup> into the counter with release
 * stores, the second wrapping the 32-bit word to 0. The poller asks {@code reached(2^32-1)} twice and reads the result
 * after the first. Once the counter says a marker is done, the data written before it is visible, and the marker stays
 * done across the wrap.
 */
@JCStressTest
@Description("A marker seen done through the device-written counter shows the data written before it, and stays done "
        + "when the 32-bit counter wraps.")
@Outcome(id = {"0, -1, 0", "0, -1, 1"}, expect = ACCEPTABLE, desc = "Not written yet when first asked.")
@Outcome(id = "1, 42, 1", expect = ACCEPTABLE, desc = "Done, with the data, and still done after the wrap.")
@Outcome(id = "1, 0, 1", expect = FORBIDDEN, desc = "Done before the data written ahead of the counter is visible.")
@Outcome(id = "1, 42, 0", expect = FORBIDDEN, desc = "Went back to not done when the counter wrapped.")
@Outcome(expect = FORBIDDEN, desc = "Anything else.")
@State
public class CompletionCounterStress {

    private static final long LAST_BEFORE_WRAP = 0xFFFF_FFFFL;
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    /** Host memory "mapped" at its own address, as the device would write it. */
    private static final PinnedMemory HOST = new PinnedMemory() {
        private final Arena arena = Arena.ofAuto();

        @Override
        public long allocate(long bytes, boolean mapped) {
            return arena.allocate(bytes, 64).address();
        }

        @Override
        public long devicePointer(long host) {
            return host;
        }

        @Override
        public void free(long host) {
        }
    };

    private static final CompletionCounters COUNTERS = new CompletionCounters(HOST, Integer.MAX_VALUE);

    private final CompletionCounters.Counter counter = java.util.Objects.requireNonNull(COUNTERS.tryAcquire());
    private final MemorySegment word = MemorySegment.ofAddress(counter.device()).reinterpret(4);
    private int result;

    public CompletionCounterStress() {
        INT.setVolatile(word, 0L, (int) (LAST_BEFORE_WRAP - 1)); // the marker before: the stream is this far
    }

    @Actor
    public void device() {
        result = 42;
        INT.setRelease(word, 0L, (int) LAST_BEFORE_WRAP);
        INT.setRelease(word, 0L, (int) (LAST_BEFORE_WRAP + 1));
    }

    @Actor
    public void poller(III_Result r) {
        boolean done = counter.reached(LAST_BEFORE_WRAP);
        r.r1 = done ? 1 : 0;
        r.r2 = done ? result : -1;
        r.r3 = counter.reached(LAST_BEFORE_WRAP) ? 1 : 0;
    }

    /** Both actors are done: nothing writes the counter any more, so it goes back to the pool (as a synchronised stream's does). */
    @Arbiter
    public void giveBack() {
        COUNTERS.release(counter);
    }
}
