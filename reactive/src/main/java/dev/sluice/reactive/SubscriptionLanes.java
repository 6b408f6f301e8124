package dev.sluice.reactive;

import org.jspecify.annotations.Nullable;

/**
 * The lanes one subscription took from its pipeline, and the places ({@link Flight}s) in them: where the next chunk
 * goes, which finished chunk is emitted next (the next in input order, or the oldest one done), the earliest
 * failure, and each lane's way back to the pipeline once its device work is done. Drain loop only.
 */
final class SubscriptionLanes {

    private final LanePool pool;
    private final Lane[] lanes;
    /** The flights of the lanes opened, lane by lane: {@code flightCount} of them. */
    private final Flight[] flights;
    private int flightCount;
    /** Lanes handed back to the pipeline (after termination only). */
    private final boolean[] handedBack;
    private int opened;

    SubscriptionLanes(LanePool pool, PipelineSpec spec) {
        this.pool = pool;
        this.lanes = new Lane[spec.lanes()];
        this.flights = new Flight[spec.capacity()];
        this.handedBack = new boolean[spec.lanes()];
    }

    /**
     * Where the next chunk goes: an empty lane (the first one), else a new lane while fewer than
     * {@code lanes} are open, else the lane holding the fewest chunks, behind them on its stream.
     */
    Flight freeFlight() {
        Lane best = null;
        int bestBusy = Integer.MAX_VALUE;
        for (int i = 0; i < opened; i++) {
            int b = lanes[i].busy();
            if (b < bestBusy) {
                best = lanes[i];
                bestBusy = b;
            }
        }
        if (best != null && bestBusy == 0) {
            return best.flights[0];
        }
        if (opened < lanes.length) {
            Lane lane = pool.acquire(opened);
            lanes[opened++] = lane;
            for (Flight f : lane.flights) {
                flights[flightCount++] = f;
            }
            return lane.flights[0];
        }
        Flight f = best == null ? null : best.freeFlight();
        if (f == null) {
            // Cannot happen while upstream honours the requests: each emitted result frees a flight first.
            throw new IllegalStateException("no free place in " + opened + " lanes; upstream sent more than requested");
        }
        return f;
    }

    /** The flight holding chunk {@code seq}, or null. */
    @Nullable Flight withSequence(long seq) {
        for (int i = 0; i < flightCount; i++) {
            Flight f = flights[i];
            if (f.state() != Flight.FREE && f.chunkSequence() == seq) {
                return f;
            }
        }
        return null;
    }

    /** The finished flight of the earliest chunk, or null. */
    @Nullable Flight oldestDone() {
        Flight best = null;
        for (int i = 0; i < flightCount; i++) {
            Flight f = flights[i];
            if (f.state() == Flight.DONE && (best == null || f.chunkSequence() < best.chunkSequence())) {
                best = f;
            }
        }
        return best;
    }

    /** The failure of the earliest finished chunk that failed, if any. */
    @Nullable Throwable firstFailure() {
        Flight first = null;
        for (int i = 0; i < flightCount; i++) {
            Flight f = flights[i];
            if (f.state() == Flight.DONE && f.error() != null && (first == null || f.chunkSequence() < first.chunkSequence())) {
                first = f;
            }
        }
        return first == null ? null : first.error();
    }

    /** The flights in {@code state}. */
    int count(int state) {
        int c = 0;
        for (int i = 0; i < flightCount; i++) {
            if (flights[i].state() == state) {
                c++;
            }
        }
        return c;
    }

    /** Drops every result not emitted. */
    void discardResults() {
        for (int i = 0; i < flightCount; i++) {
            if (flights[i].state() == Flight.DONE) {
                flights[i].discardResult();
            }
        }
    }

    /**
     * Hands every lane whose device work is done back to the pipeline (kept for the next subscription, or
     * released if its last chunk failed or the host scheduler of {@code loop} went away); lanes still in flight
     * come back on a later call. After termination only: a lane handed back may at once serve another subscription.
     */
    void handBackIdle(DrainLoop loop) {
        for (int i = 0; i < opened; i++) {
            Lane l = lanes[i];
            if (!handedBack[i] && l.inFlight() == 0) {
                boolean reusable = l.reusable() && loop.hostFailure() == null; // no scheduler: release, do not keep
                l.detach(); // drops a result not emitted (after a cancel or an error)
                handedBack[i] = true;
                pool.recycle(l, reusable);
            }
        }
    }

    /** Whether every lane opened has gone back to the pipeline. */
    boolean allHandedBack() {
        for (int i = 0; i < opened; i++) {
            if (!handedBack[i]) {
                return false;
            }
        }
        return true;
    }
}
