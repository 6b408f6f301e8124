package dev.sluice.reactive;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of one {@link GpuPipeline}, summed over all its subscriptions, for tests, dashboards and the
 * promise that buffers are recycled: {@link #deviceAllocations()} and {@link #hostAllocations()} grow with
 * the number of lanes opened, never with the number of chunks, and not at all for a subscription that runs on
 * lanes the pipeline kept ({@link #lanesReused()}). Updating them allocates nothing. Thread-safe; each getter
 * is a separate read.
 */
public final class PipelineMetrics {

    final LongAdder lanesOpened = new LongAdder();
    final LongAdder lanesReused = new LongAdder();
    final LongAdder lanesClosed = new LongAdder();
    final LongAdder deviceAllocations = new LongAdder();
    final LongAdder hostAllocations = new LongAdder();
    final LongAdder deviceReleases = new LongAdder();
    final LongAdder hostReleases = new LongAdder();
    final LongAdder chunksStarted = new LongAdder();
    final LongAdder graphReplays = new LongAdder();
    final LongAdder graphBuilds = new LongAdder();
    final LongAdder stageFallbacks = new LongAdder();
    final LongAdder fusedLaunches = new LongAdder();
    final LongAdder chunksEmitted = new LongAdder();
    final AtomicLong inFlight = new AtomicLong();
    final AtomicLong maxInFlight = new AtomicLong();
    /** What the pipeline's lanes report of their buffers, into these counters. */
    private final DeviceLane.Counters laneCounters = new DeviceLane.Counters() {
        @Override
        public void deviceAllocated() {
            deviceAllocations.increment();
        }

        @Override
        public void deviceReleased() {
            deviceReleases.increment();
        }

        @Override
        public void stagingTaken() {
            hostAllocations.increment();
        }

        @Override
        public void stagingGiven() {
            hostReleases.increment();
        }
    };

    PipelineMetrics() {
    }

    /**
     * Chunks whose stage ran as one graph launch ({@link GpuPipeline.Builder#graphReplay}), those that built their
     * graph included.
     */
    public long graphReplays() {
        return graphReplays.sum();
    }

    /**
     * Graphs the lanes built for their stages: one per lane for its first chunk, and one for each chunk of a shape the
     * lane had no graph of (a lane keeps the graphs of its last four shapes, see {@link dev.sluice.RepeatedWork}).
     */
    public long graphBuilds() {
        return graphBuilds.sum();
    }

    /** Chunks whose stage, under graph replay, ran as plain enqueues (see {@link GpuPipeline.Builder#graphReplay}). */
    public long stageFallbacks() {
        return stageFallbacks.sum();
    }

    /**
     * Launches of the stages that ran inside a fused kernel ({@link GpuPipeline.Builder#elementwiseFusion}): a chunk
     * whose stage ran two element-wise launches as one adds two.
     */
    public long fusedLaunches() {
        return fusedLaunches.sum();
    }

    /** Lanes (a stream and its buffers) opened so far. */
    public long lanesOpened() {
        return lanesOpened.sum();
    }

    /** Lanes a subscription took from those the pipeline kept from an earlier one, instead of opening them. */
    public long lanesReused() {
        return lanesReused.sum();
    }

    /** Lanes whose stream has been closed after their buffers were freed. */
    public long lanesClosed() {
        return lanesClosed.sum();
    }

    /** Device buffers allocated so far (input, output and scratch buffers of every lane opened). */
    public long deviceAllocations() {
        return deviceAllocations.sum();
    }

    /** The counters the pipeline's lanes report their buffers to. */
    DeviceLane.Counters laneCounters() {
        return laneCounters;
    }

    /**
     * Pinned host staging buffers the lanes took so far from the pipeline's pool (newly pinned, or reused from a lane
     * released before).
     */
    public long hostAllocations() {
        return hostAllocations.sum();
    }

    /** Device and pinned host allocations so far. */
    public long allocations() {
        return deviceAllocations() + hostAllocations();
    }

    /** Device buffers whose stream-ordered free has completed on the device. */
    public long deviceReleases() {
        return deviceReleases.sum();
    }

    /** Pinned staging buffers the lanes gave back to the pool (each reusable once the device had finished its copies). */
    public long hostReleases() {
        return hostReleases.sum();
    }

    /**
     * Allocations not yet released: the kept lanes' buffers while the pipeline is open; 0 once it is closed and
     * every subscription has ended (see {@link GpuPipeline#released()}), or, with
     * {@link GpuPipeline.Builder#keepLanes keepLanes(false)}, once every subscription has ended and its lanes
     * have drained.
     */
    public long liveAllocations() {
        return allocations() - deviceReleases() - hostReleases();
    }

    /** Chunks whose upload was enqueued. */
    public long chunksStarted() {
        return chunksStarted.sum();
    }

    /** Results emitted downstream. */
    public long chunksEmitted() {
        return chunksEmitted.sum();
    }

    /** Chunks whose device work (upload, stage, download) has been enqueued and has not finished. */
    public long inFlight() {
        return inFlight.get();
    }

    /** The most chunks ever in flight at once (summed over concurrent subscriptions). */
    public long maxInFlight() {
        return maxInFlight.get();
    }

    void chunkEnqueued() {
        chunksStarted.increment();
        long now = inFlight.incrementAndGet();
        maxInFlight.accumulateAndGet(now, Math::max);
    }

    void chunkFinished() {
        inFlight.decrementAndGet();
    }

    @Override
    public String toString() {
        return "PipelineMetrics[lanes " + lanesOpened() + " opened, " + lanesReused() + " reused, " + lanesClosed()
                + " closed; allocations device "
                + deviceAllocations() + ", host " + hostAllocations() + "; released device " + deviceReleases() + ", host "
                + hostReleases() + "; chunks " + chunksStarted() + " started, " + chunksEmitted() + " emitted, " + inFlight()
                + " in flight (max " + maxInFlight() + ")]";
    }
}
