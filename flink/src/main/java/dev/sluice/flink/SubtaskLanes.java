package dev.sluice.flink;

import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.HostBufferPool;
import dev.sluice.Kernel;
import dev.sluice.reactive.DeviceLane;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.apache.flink.streaming.api.functions.async.ResultFuture;
import org.jspecify.annotations.Nullable;

/**
 * The lanes of one subtask of a {@link SluiceAsyncFunction} and who has them: the free lanes, the elements waiting for
 * one (in arrival order), and each element on a lane, by its {@code ResultFuture}: Flink hands {@code timeout} the one
 * it gave {@code asyncInvoke}, one per invocation, while one element instance may be given twice (a map emitting one
 * immutable array for every record), so the element's identity would mix up two invocations.
 * What happens to an element (its stage, its result, its failure) is the function's; this class only hands lanes out
 * and takes them back. Thread-safe: the task thread admits elements and times them out, completion threads free lanes.
 *
 * @param <IN>  the element type
 * @param <OUT> the result type
 */
final class SubtaskLanes<IN, OUT> {

    /**
     * An element that waits for a lane, since {@code arrivedNanos} ({@link System#nanoTime()}); {@code number} counts
     * the subtask's elements, for messages ({@link Elements#describe}).
     */
    record Waiting<I, O>(I element, ResultFuture<O> result, long arrivedNanos, long number) {
    }

    /**
     * Element {@code number} of the subtask on {@code lane}, since {@code arrivedNanos}. {@code counted} is set by
     * whichever counts its outcome first: the end of its work, or the function's {@code timeout}, after which its work
     * still ends.
     */
    record Running(GpuLane lane, long arrivedNanos, long number, AtomicBoolean counted) {
        Running(GpuLane lane, long arrivedNanos, long number) {
            this(lane, arrivedNanos, number, new AtomicBoolean());
        }
    }

    /** A waiting element and the lane it now has: the function starts it (on another thread). */
    record Handoff<I, O>(Waiting<I, O> next, Running running) {
    }

    /**
     * What {@link #timedOut} found of an element: on a lane, waiting (then no longer), or neither; its number, or
     * {@link Elements#UNKNOWN} for neither.
     */
    record Lookup(@Nullable Running running, boolean wasWaiting, long number, int inFlight) {
    }

    private final Object lock = new Object();
    private final List<GpuLane> all = new ArrayList<>();
    private final ArrayDeque<GpuLane> free = new ArrayDeque<>();
    private final ArrayDeque<Waiting<IN, OUT>> waiting = new ArrayDeque<>();
    private final Map<ResultFuture<OUT>, Running> inFlight = new IdentityHashMap<>();
    private boolean closed;

    /**
     * Opens {@code count} lanes on {@code context}, each a {@link DeviceLane} over a new stream with staging from
     * {@code staging}; lanes opened before a failure stay, for {@link #close()}. Graph replay and fusion are on: they
     * apply only to what a stage runs through {@link GpuLane#repeat}.
     */
    void open(DeviceContext context, HostBufferPool staging, int count, Function<Kernel, DeviceFunction> functions) {
        for (int i = 0; i < count; i++) {
            GpuLane lane = new GpuLane(DeviceLane.open(context.createStream(), i, staging, true, true), functions);
            synchronized (lock) {
                all.add(lane);
                free.add(lane);
            }
        }
    }

    /** Every lane opened. */
    List<GpuLane> lanes() {
        synchronized (lock) {
            return List.copyOf(all);
        }
    }

    /**
     * Puts {@code input}, the subtask's element {@code number}, on a free lane (returned: the caller starts it), or
     * queues it for the next lane that frees (null). After {@link #close()}, runs {@code ifClosed} under the lock and
     * returns null.
     */
    @Nullable Running admit(IN input, ResultFuture<OUT> result, long arrivedNanos, long number, Runnable ifClosed) {
        synchronized (lock) {
            if (closed) {
                ifClosed.run();
                return null;
            }
            GpuLane lane = free.poll();
            if (lane == null) {
                waiting.add(new Waiting<>(input, result, arrivedNanos, number));
                return null;
            }
            Running running = new Running(lane, arrivedNanos, number);
            inFlight.put(result, running);
            return running;
        }
    }

    /**
     * Takes back {@code lane} after the element whose result is {@code result}: free again, or handed to the next
     * waiting element (returned: the caller starts it); null as well once closed.
     */
    @Nullable Handoff<IN, OUT> free(GpuLane lane, ResultFuture<OUT> result) {
        synchronized (lock) {
            Running r = inFlight.get(result);
            if (r != null && r.lane() == lane) { // else Flink's retry of the element has it on another lane already
                inFlight.remove(result);
            }
            if (closed) {
                return null;
            }
            Waiting<IN, OUT> next = waiting.poll();
            if (next == null) {
                free.add(lane);
                return null;
            }
            Running running = new Running(lane, next.arrivedNanos(), next.number());
            inFlight.put(next.result(), running);
            return new Handoff<>(next, running);
        }
    }

    /**
     * Where the element whose result is {@code result}, timed out, is: on a lane (which stays busy until its work ends),
     * or waiting (dropped now).
     */
    Lookup timedOut(ResultFuture<OUT> result) {
        synchronized (lock) {
            Running r = inFlight.get(result);
            if (r != null) {
                return new Lookup(r, false, r.number(), inFlight.size());
            }
            for (Iterator<Waiting<IN, OUT>> it = waiting.iterator(); it.hasNext(); ) {
                Waiting<IN, OUT> w = it.next();
                if (w.result() == result) {
                    it.remove();
                    return new Lookup(null, true, w.number(), inFlight.size());
                }
            }
            return new Lookup(null, false, Elements.UNKNOWN, inFlight.size());
        }
    }

    /** Elements on a lane now. */
    int inFlight() {
        synchronized (lock) {
            return inFlight.size();
        }
    }

    boolean isClosed() {
        synchronized (lock) {
            return closed;
        }
    }

    /**
     * Stops handing out lanes and drops the waiting elements; the lanes to close (the caller closes them), or null if
     * closed already.
     */
    @Nullable List<GpuLane> close() {
        synchronized (lock) {
            if (closed) {
                return null;
            }
            closed = true;
            waiting.clear();
            return List.copyOf(all);
        }
    }
}
