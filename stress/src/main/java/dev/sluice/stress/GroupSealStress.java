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
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * A marker group sealed by the enqueue that fills it: on a core of two operations per marker, operation 1 has a
 * marker of its own and operation 2 opens a group (in the state's constructor); the enqueuing actor adds operation 3
 * through the real {@code StreamOrder.mark}, which writes the group's {@code lastSequence}, fills it and seals it (its
 * volatile {@code marker}). The other actor reads as the completion thread does: operation 2's marker, then the
 * group's {@code lastSequence}, which decides the one future that releases the marker.
 */
@JCStressTest
@Description("A completion thread that sees a sealed group's marker sees the group's final lastSequence: it never "
        + "releases a shared marker after an earlier future of the group (the pool would hand it out while later "
        + "futures still poll it) nor twice.")
@Outcome(id = {"0, 0"}, expect = ACCEPTABLE, desc = "The group is not sealed yet: the completion thread waits.")
@Outcome(id = {"1, 3"}, expect = ACCEPTABLE, desc = "Sealed, with operation 3 as its last.")
@Outcome(id = {"1, 2"}, expect = FORBIDDEN, desc = "Saw the marker but a stale lastSequence.")
@Outcome(expect = FORBIDDEN, desc = "Anything else.")
@State
public class GroupSealStress {

    private final StreamOrder core = StressCores.core(2);
    private final Operation<Void> second;

    public GroupSealStress() {
        StressCores.enqueue(core); // nothing pending: a marker of its own
        second = StressCores.enqueue(core); // the first is pending: opens a group
    }

    @Actor
    public void enqueue() {
        StressCores.enqueue(core); // joins the group, fills it and seals it
    }

    @Actor
    public void complete(JJ_Result r) {
        Marker m = StressProbe.marker(second);
        if (m != null) {
            r.r1 = 1;
            r.r2 = StressProbe.groupLastSequence(second);
        }
    }
}
