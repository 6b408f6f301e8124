package dev.sluice.hip;

import dev.sluice.spi.support.EventPool;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;

/**
 * Frees that must wait for the device, done on a thread of their own. {@code hipFree} and
 * {@code hipHostFree} synchronise the whole device; called on an enqueueing thread or the completion thread
 * they could deadlock behind a stream gated on host work that thread has yet to do. So a stream-ordered free
 * of memory from {@code hipMalloc} (where {@code hipFreeAsync} does not apply) records an event on the stream
 * and hands the free to this thread, which waits for the event and then frees. Started on first use.
 */
final class Reaper {

    private static final Logger LOG = System.getLogger(Reaper.class.getName());

    /** A free to run once {@code event} (0: none) has completed. */
    private record Job(long event, Runnable free) {
    }

    private static final Job STOP = new Job(0, () -> { });

    private final HipApi api;
    private final int device;
    private final EventPool events;
    private final LinkedBlockingQueue<Job> jobs = new LinkedBlockingQueue<>();
    private Thread thread;

    /**
     * @param api    the runtime
     * @param device the device whose memory it frees
     * @param events where it takes the events it waits on
     */
    Reaper(HipApi api, int device, EventPool events) {
        this.api = api;
        this.device = device;
        this.events = events;
    }

    /** Runs {@code free} after everything enqueued on {@code stream} so far has finished. */
    void afterStream(long stream, Runnable free) {
        long event = events.take();
        try {
            api.eventRecord(event, stream);
        } catch (RuntimeException e) {
            events.give(event);
            throw e;
        }
        submit(new Job(event, free));
    }

    /** Runs {@code free} on the reaper thread as soon as possible. */
    void later(Runnable free) {
        submit(new Job(0, free));
    }

    private synchronized void submit(Job job) {
        if (thread == null) {
            thread = Thread.ofPlatform().daemon().name("sluice-hip-reaper-" + device).start(this::run);
        }
        jobs.add(job);
    }

    private void run() {
        while (true) {
            Job job;
            try {
                job = jobs.take();
            } catch (InterruptedException e) {
                continue;
            }
            if (job == STOP) {
                return;
            }
            try {
                if (job.event != 0) {
                    api.eventSynchronize(job.event);
                    events.give(job.event);
                }
                api.setDevice(device);
                job.free.run();
            } catch (RuntimeException e) {
                LOG.log(Level.DEBUG, "deferred free on hip device " + device + " failed", e);
            }
        }
    }

    /** Runs every pending free and stops the thread; called by the context's close after synchronising. */
    void drainAndStop() {
        Thread t;
        synchronized (this) {
            t = thread;
            if (t == null) {
                return;
            }
            jobs.add(STOP);
        }
        try {
            t.join(TimeUnit.SECONDS.toMillis(10)); // a free stuck behind another context's gated stream finishes later
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
