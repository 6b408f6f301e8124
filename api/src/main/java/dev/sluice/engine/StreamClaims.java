package dev.sluice.engine;

import dev.sluice.ClosedResourceException;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * Ownership and automatic ordering for one stream's enqueues: the memory the operation being enqueued claims (refused if
 * it was closed since the caller's check; a close waits for the claim to become a noted use or be given back), the
 * other streams' uses it must wait for on the device, and the uses it leaves for later operations to wait for. Under
 * the stream's lock, like the enqueue it serves.
 */
final class StreamClaims {

    private final StreamEnqueuer stream;
    private final StreamOrder core;
    /** Whether automatic ordering is on for the context. */
    private final boolean ordering;
    /** Other streams' uses the operation being enqueued must wait for. */
    private final UseTracker.Hazards hazards = new UseTracker.Hazards();
    /** The memory the operation being enqueued has claimed. */
    private final UseTracker.Claims claims = new UseTracker.Claims();
    private long automaticWaits;

    StreamClaims(StreamEnqueuer stream, StreamOrder core, boolean ordering) {
        this.stream = stream;
        this.core = core;
        this.ordering = ordering;
    }

    /** Whether uses of memory are ordered across streams (automatic ordering on, and not capturing). */
    boolean ordering() {
        return ordering;
    }

    /** Forgets hazards left over by an earlier enqueue that failed between its claims and its waits. */
    void begin() {
        hazards.clear();
    }

    /** The operation is marked: its claims are the stream's now, each ended when its use is noted. */
    void marked() {
        claims.clear();
    }

    /** The enqueue failed: gives its claims back, so that a close() does not wait for a use that never came. */
    void giveBack() {
        claims.unclaimAll();
    }

    /**
     * Claims the memory {@code w} uses, refused with {@link ClosedResourceException} naming the argument once it is
     * closed; memory a recording {@code held} is claimed whatever its owner did since ({@link #claimRecorded}).
     */
    void claim(Work w, boolean held, boolean capturing) {
        for (int i = 0; i < w.regionCount; i++) {
            Region r = w.regions[i];
            if (!claim(r, w.writes[i], capturing, held ? null : r.allocation().closed)) {
                throw new ClosedResourceException(w.argumentName(i) + " " + r.what());
            }
        }
        HostAllocation h = w.host;
        if (h != null) {
            h.uses.claim(held ? null : h.closed, w.hostArgument, Objects.requireNonNull(w.hostWhat));
            claims.add(h.uses);
        }
    }

    /** Notes {@code f}, the operation of {@code w}, as the use of each piece of memory {@code w} claimed. */
    void used(Work w, Operation<?> f, @Nullable GraphCapture capture) {
        for (int i = 0; i < w.regionCount; i++) {
            used(w.regions[i], f, w.writes[i], capture);
        }
        used(w.host, w.hostWhat, f, capture);
    }

    private boolean claim(Region buffer, boolean writes, boolean capturing, @Nullable AtomicBoolean closed) {
        Allocation a = buffer.allocation();
        boolean open;
        if (ordering && buffer.ordered() && !capturing) {
            long start = buffer.byteOffset();
            open = a.uses.claimOrdered(closed, core, start, start + buffer.byteSize(), writes, hazards);
        } else {
            open = a.uses.claimIfOpen(closed);
        }
        if (open) {
            claims.add(a.uses);
        }
        return open;
    }

    /** Claims what a graph's replay uses, ordered as a write of the whole allocation; false if it is closed. */
    boolean claimForReplay(GraphCapture.Use u) {
        boolean open = u.ordered() && ordering
                ? u.uses().claimOrdered(u.closed(), core, 0, Long.MAX_VALUE, true, hazards)
                : u.uses().claimIfOpen(u.closed());
        if (open) {
            claims.add(u.uses());
        }
        return open;
    }

    /**
     * Makes the stream wait, on the device, for the other streams' uses that the claims found in conflict. A use whose
     * group is still open is sealed first, which may let the stream's lock go for a moment: another enqueue on this
     * stream may then refill the stream's own description of its operation, so {@code w} (if any) is copied first, and
     * the copy returned; otherwise {@code w} itself.
     */
    @Nullable Work orderAfterHazards(@Nullable Work w) {
        UseTracker.Hazards h = hazards;
        if (h.size() == 0) {
            return w;
        }
        try {
            for (int i = 0; i < h.size(); i++) {
                Operation<?> use = h.get(i);
                if (!use.trySeal()) {
                    // While the lock is let go another enqueue on this stream may run, with the stream's hazard and
                    // claim lists: this enqueue takes what is left of its own along, and puts its claims back after.
                    if (h == hazards) {
                        h = hazards.detach(i);
                        i = 0;
                        w = w == null ? null : w.copy(null);
                    }
                    UseTracker.Claims mine = claims.detach();
                    core.unlock();
                    try {
                        use.seal();
                    } finally {
                        core.lock();
                        claims.attach(mine);
                    }
                    stream.checkOpenLocked();
                    if (stream.isCapturing()) {
                        return w; // another thread began a capture meanwhile: captured work waits at the graph's launch
                    }
                }
                if (stream.waitMarkerLocked(use)) {
                    automaticWaits++;
                }
            }
        } finally {
            h.clear();
        }
        return w;
    }

    /** The device-side waits automatic ordering has enqueued. */
    long automaticWaits() {
        return automaticWaits;
    }

    /** Notes {@code f} as a use of {@code buffer}, ending its claim; {@code capture}, if any, remembers the memory. */
    private void used(Region buffer, Operation<?> f, boolean writes, @Nullable GraphCapture capture) {
        Allocation a = buffer.allocation();
        if (ordering && buffer.ordered() && capture == null) {
            long start = buffer.byteOffset();
            a.uses.noteOrdered(core, f, start, start + buffer.byteSize(), writes);
        } else {
            a.uses.noteUse(core, f);
        }
        if (capture != null) {
            capture.used(a.uses, a.closed, buffer.what(), ordering && buffer.ordered());
        }
    }

    /** Notes {@code f} as a use of host memory, if any. */
    private void used(@Nullable HostAllocation buffer, @Nullable PublicMemory what, Operation<?> f,
            @Nullable GraphCapture capture) {
        if (buffer != null) {
            buffer.uses.noteUse(core, f);
            if (capture != null) {
                capture.used(buffer.uses, buffer.closed, what, false);
            }
        }
    }

    /** Notes a graph replay's use of what it captured. */
    void usedByReplay(GraphCapture.Use u, Operation<?> f) {
        if (u.ordered() && ordering) {
            u.uses().noteOrdered(core, f, 0, Long.MAX_VALUE, true);
        } else {
            u.uses().noteUse(core, f);
        }
    }

    /** Notes a new allocation as written by {@code f}: other streams' first uses wait for the memory to exist. */
    void allocated(Allocation a, Operation<?> f, long bytes) {
        a.uses.noteWrite(core, f, 0, bytes);
    }
}
