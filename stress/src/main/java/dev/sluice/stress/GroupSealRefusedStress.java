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
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * {@link GroupSealStress} on a backend that refuses every marker: sealing then writes the group's plain
 * {@code failure} before its volatile {@code marker} ({@link Marker#DONE} standing in for the refused one). The
 * completion thread reads the marker, then {@code failure} (which {@code Operation.finish()} gives to each future of
 * the group) and {@code lastSequence}.
 */
@JCStressTest
@Description("A completion thread that sees a sealed group's marker sees the backend's refusal recorded with it: "
        + "every future of a group whose marker was refused fails, none completes normally.")
@Outcome(id = {"0, 0, 0"}, expect = ACCEPTABLE, desc = "The group is not sealed yet: the completion thread waits.")
@Outcome(id = {"1, 1, 3"}, expect = ACCEPTABLE, desc = "Sealed: the refusal and the final lastSequence are seen.")
@Outcome(id = {"1, 0, 3", "1, 0, 2"}, expect = FORBIDDEN, desc = "Saw the marker but not the refusal: the future would complete normally.")
@Outcome(expect = FORBIDDEN, desc = "Anything else (a stale lastSequence).")
@State
public class GroupSealRefusedStress {

    private static final RuntimeException REFUSED = new IllegalStateException("marker refused (stress test)");

    private final StreamOrder core = StressCores.refusingCore(2, REFUSED);
    private final Operation<Void> second;

    public GroupSealRefusedStress() {
        StressCores.enqueue(core); // nothing pending: a marker of its own (refused: the future fails)
        second = StressCores.enqueue(core); // the first is pending: opens a group
    }

    @Actor
    public void enqueue() {
        StressCores.enqueue(core); // joins the group, fills it and seals it, recording the refusal
    }

    @Actor
    public void complete(III_Result r) {
        Marker m = StressProbe.marker(second);
        if (m != null) {
            r.r1 = 1;
            r.r2 = StressProbe.groupFailure(second) == REFUSED ? 1 : 0;
            r.r3 = (int) StressProbe.groupLastSequence(second);
        }
    }
}
