package dev.sluice.reactive;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceEvent;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceGraph;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.HostData;
import dev.sluice.LaunchConfig;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * The reactive face of a {@link DeviceStream}: one cold {@link Mono} per enqueue operation. Nothing is
 * enqueued when a method is called; each subscription enqueues the operation once, on this stream, and the
 * {@code Mono} completes when the device has finished it. Arguments are checked at subscription: a bad one
 * is signalled as {@code onError} with the {@link dev.sluice.InvalidArgumentException} the stream threw,
 * with nothing enqueued.
 *
 * <p>The same block applies to every method:
 * <ul>
 * <li><b>Ordering:</b> the operation takes its place in the stream at subscription time, after everything
 * enqueued on the stream before, like the {@code enqueue*} call it stands for. Subscribing to two
 * {@code Mono}s one after the other ({@code a.then(b)}) enqueues the second only once the first has
 * finished: a host round trip between them. To enqueue a chain at once, with device-side waits between
 * streams, use {@link DevicePlan} ({@link #plan()}).
 * <li><b>Completion thread:</b> {@code onNext}/{@code onComplete}/{@code onError} arrive on the context's
 * completion thread ({@code sluice-completion-*}), which completes the futures of every stream of the
 * context (on the subscribing thread if the operation had already finished). It must never block (Sluice's
 * synchronous calls refuse to run there, and BlockHound reports them): keep operators attached directly
 * short, and hop off with {@code publishOn(Schedulers.parallel())} for longer work, or
 * {@code publishOn(Schedulers.boundedElastic())} before anything that blocks.
 * <li><b>Cancellation:</b> cancelling the {@code Mono} stops its signals and nothing else: the operation
 * already enqueued runs to the end, later operations on the stream still wait for it, and the
 * {@link DeviceFuture} is not cancelled. A subscription cancelled before it enqueued enqueues nothing.
 * <li><b>Resources:</b> buffers, host memory, arrays and segments passed in stay allocated and reachable
 * until the device has finished the operation, even if the {@code Mono} was cancelled or a buffer closed
 * meanwhile ({@link DeviceBuffer#close()} frees in stream order after every enqueued use). Host memory must
 * not be changed (sources) or read (destinations) until the {@code Mono} completes.
 * </ul>
 *
 * <p>Thread-safe; as cheap to create as the stream it wraps.
 */
public final class ReactiveStream {

    private final DeviceStream stream;

    private ReactiveStream(DeviceStream stream) {
        this.stream = stream;
    }

    /** The reactive face of {@code stream}. */
    public static ReactiveStream of(DeviceStream stream) {
        return new ReactiveStream(Objects.requireNonNull(stream, "stream"));
    }

    /** The reactive face of {@code context}'s default stream. */
    public static ReactiveStream of(DeviceContext context) {
        return of(Objects.requireNonNull(context, "context").stream());
    }

    /**
     * The stream every {@code Mono} of this face enqueues on, at subscription; its own enqueue methods may be mixed
     * with these, in one order.
     */
    public DeviceStream stream() {
        return stream;
    }

    /** The stream's context. */
    public DeviceContext context() {
        return stream.context();
    }

    /** A {@link DevicePlan} starting on this stream: a chain of operations enqueued at once on subscription. */
    public DevicePlan plan() {
        return DevicePlan.on(stream);
    }

    /**
     * Any operation on this stream: {@code operation} is called with the stream on each subscription and
     * returns the operation's future. For what this class has no method for.
     */
    public <T> Mono<T> enqueue(Function<? super DeviceStream, ? extends DeviceFuture<? extends T>> operation) {
        Objects.requireNonNull(operation, "operation");
        return DeviceMonos.enqueue(() -> operation.apply(stream));
    }

    // ---------------------------------------------------------------- memory

    /**
     * Allocates in stream order ({@link DeviceStream#enqueueAllocate}) and emits the buffer once its memory
     * exists. The subscriber owns the buffer and closes it; if it cancels before the buffer is emitted, the
     * buffer is closed for it (freed after any use already enqueued).
     */
    public Mono<DeviceBuffer> allocate(DType type, long count) {
        return DeviceMonos.enqueue(() -> stream.enqueueAllocate(type, count).ready(), DeviceBuffer::close);
    }

    /** Frees {@code buffer} in stream order after all its enqueued uses ({@link DeviceStream#enqueueFree}). */
    public Mono<Void> free(DeviceBuffer buffer) {
        return DeviceMonos.enqueue(() -> stream.enqueueFree(buffer));
    }

    // ---------------------------------------------------------------- copies

    /**
     * Copies all of {@code source} to {@code destination} ({@link DeviceStream#enqueueCopy(HostData, DeviceBuffer)}, its
     * checks made at subscription): a {@link HostBuffer}, or an array, {@code ByteBuffer} or {@code MemorySegment}
     * wrapped by {@link HostData#of}. Each subscription copies again, from the memory as it is then.
     */
    public Mono<Void> copy(HostData source, DeviceBuffer destination) {
        return DeviceMonos.enqueue(() -> stream.enqueueCopy(source, destination));
    }

    /**
     * Copies all of {@code source} into {@code destination} ({@link DeviceStream#enqueueCopy(DeviceBuffer, HostData)}, its
     * checks made at subscription); read the destination once the {@code Mono} has completed.
     */
    public Mono<Void> copy(DeviceBuffer source, HostData destination) {
        return DeviceMonos.enqueue(() -> stream.enqueueCopy(source, destination));
    }

    /** Device to device, or a peer copy between two contexts of one backend ({@link DeviceStream#enqueueCopy(DeviceBuffer, DeviceBuffer)}). */
    public Mono<Void> copy(DeviceBuffer source, DeviceBuffer destination) {
        return DeviceMonos.enqueue(() -> stream.enqueueCopy(source, destination));
    }

    /**
     * Copies a rectangle of {@code height} rows of {@code width} elements, rows {@code sourcePitch} and
     * {@code destinationPitch} elements apart, in one operation
     * ({@link DeviceStream#enqueueCopy2D(HostData, long, DeviceBuffer, long, long, long)}, its checks made at
     * subscription). Each subscription copies again, from the memory as it is then.
     */
    public Mono<Void> copy2D(HostData source, long sourcePitch, DeviceBuffer destination, long destinationPitch, long width,
            long height) {
        return DeviceMonos.enqueue(() -> stream.enqueueCopy2D(source, sourcePitch, destination, destinationPitch, width, height));
    }

    /**
     * Copies a rectangle into host memory ({@link DeviceStream#enqueueCopy2D(DeviceBuffer, long, HostData, long, long, long)},
     * its checks made at subscription); read the destination once the {@code Mono} has completed.
     */
    public Mono<Void> copy2D(DeviceBuffer source, long sourcePitch, HostData destination, long destinationPitch, long width,
            long height) {
        return DeviceMonos.enqueue(() -> stream.enqueueCopy2D(source, sourcePitch, destination, destinationPitch, width, height));
    }

    /**
     * Copies a rectangle between two device buffers of this context
     * ({@link DeviceStream#enqueueCopy2D(DeviceBuffer, long, DeviceBuffer, long, long, long)}, its checks made at subscription).
     */
    public Mono<Void> copy2D(DeviceBuffer source, long sourcePitch, DeviceBuffer destination, long destinationPitch,
            long width, long height) {
        return DeviceMonos.enqueue(() -> stream.enqueueCopy2D(source, sourcePitch, destination, destinationPitch, width, height));
    }

    // ---------------------------------------------------------------- memset

    /** {@link DeviceStream#enqueueFill}: every element set to {@code value} in the buffer's element type. */
    public Mono<Void> fill(DeviceBuffer destination, Number value) {
        return DeviceMonos.enqueue(() -> stream.enqueueFill(destination, value));
    }

    /** {@link DeviceStream#enqueueMemset}: every byte set to {@code byteValue}. */
    public Mono<Void> memset(DeviceBuffer destination, int byteValue) {
        return DeviceMonos.enqueue(() -> stream.enqueueMemset(destination, byteValue));
    }

    // ---------------------------------------------------------------- kernels and graphs

    /**
     * Launches {@code function} ({@link DeviceStream#enqueueLaunch}). The {@code arguments} array is read at
     * subscription, each time: do not change it while a subscription may still come.
     */
    public Mono<Void> launch(DeviceFunction function, LaunchConfig config, Object... arguments) {
        return DeviceMonos.enqueue(() -> stream.enqueueLaunch(function, config, arguments));
    }

    /** Launches {@code graph} on this stream ({@link DeviceGraph#enqueueLaunch}). */
    public Mono<Void> launch(DeviceGraph graph) {
        Objects.requireNonNull(graph, "graph");
        return DeviceMonos.enqueue(() -> graph.enqueueLaunch(stream));
    }

    // ---------------------------------------------------------------- events, waits, host work

    /** Records {@code event} here ({@link DeviceStream#enqueueRecord}). */
    public Mono<Void> record(DeviceEvent event) {
        return DeviceMonos.enqueue(() -> stream.enqueueRecord(event));
    }

    /** Device-side wait for the last record of {@code event} ({@link DeviceStream#waitFor(DeviceEvent)}). */
    public Mono<Void> waitFor(DeviceEvent event) {
        return DeviceMonos.enqueue(() -> stream.waitFor(event));
    }

    /**
     * Device-side wait for the operation of {@code future}, of any stream of this backend
     * ({@link DeviceStream#waitFor(DeviceFuture)}): no host thread waits.
     */
    public Mono<Void> waitFor(DeviceFuture<?> future) {
        return DeviceMonos.enqueue(() -> stream.waitFor(future));
    }

    /** Device-side wait for everything enqueued on {@code other} before the subscription. */
    public Mono<Void> waitFor(DeviceStream other) {
        return DeviceMonos.enqueue(() -> stream.waitFor(other));
    }

    /**
     * Gates the stream until {@code stage} completes ({@link DeviceStream#waitFor(CompletionStage)}), without
     * blocking any thread. A stage that never completes holds the stream forever, cancelled or not.
     */
    public Mono<Void> waitFor(CompletionStage<?> stage) {
        return DeviceMonos.enqueue(() -> stream.waitFor(stage));
    }

    /** Completes when everything enqueued on the stream before the subscription has finished. */
    public Mono<Void> marker() {
        return DeviceMonos.enqueue(stream::enqueueMarker);
    }

    /**
     * Runs {@code function} in stream order on the context's host executor (virtual threads), where it may
     * block ({@link DeviceStream#enqueueHostFunction}). Its exception is signalled as {@code onError}.
     */
    public Mono<Void> hostFunction(Runnable function) {
        return DeviceMonos.enqueue(() -> stream.enqueueHostFunction(function));
    }

    @Override
    public String toString() {
        return "ReactiveStream[" + stream + "]";
    }
}
