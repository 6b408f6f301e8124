package dev.sluice.arrow;

import dev.sluice.Api;
import dev.sluice.DeviceContext;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.reactivestreams.Publisher;
import org.reactivestreams.tck.PublisherVerification;
import org.reactivestreams.tck.TestEnvironment;
import org.testng.annotations.AfterClass;
import org.testng.SkipException;
import org.testng.annotations.BeforeClass;
import org.testng.annotations.Test;
import reactor.core.publisher.Flux;

/**
 * The Reactive Streams TCK's publisher rules against {@link ArrowPipeline}'s {@code Flux}es on the CPU backend (TestNG,
 * run by the JUnit Platform's TestNG engine): {@link ArrowPipelineOrderedTckTest} for {@link ArrowPipeline#process},
 * {@link ArrowPipelineUnorderedTckTest} for {@link ArrowPipeline#processUnordered}. Every required rule must pass; the
 * TCK skips, with its reason, the optional ones a publisher of {@code n} elements cannot show and the rules it cannot
 * test.
 *
 * <p>A publisher of {@code n} elements is the pipeline over one one-row batch emitted {@code n} times (the caller may
 * reuse a batch once it has been emitted), its column passed through on the device, followed by
 * {@code doOnNext(VectorSchemaRoot::close)}: the subscriber owns each result and must close it, and the TCK's
 * subscribers only count what they receive (a result left to the garbage collector is reported as a leak of its pinned
 * memory). That pass-through adds no signal of its own. The failed publisher is a closed pipeline's. After the class,
 * the results' allocator must find every result released, those dropped by a cancel included.
 */
abstract class ArrowPipelineTck extends PublisherVerification<VectorSchemaRoot> {

    /** How long the TCK waits for an expected signal: generous, since the build machine may be shared and loaded. */
    static final long TIMEOUT_MILLIS = 5_000;
    /** How long it watches for a signal that must not come. */
    static final long NO_SIGNALS_MILLIS = 100;
    /**
     * How long after a cancel the subscriber must be unreachable (§3.13): the lanes forget the subscription once the
     * chunks in flight at the cancel have finished on the device, which a loaded build machine may take longer than the
     * TCK's default 300 ms to report.
     */
    static final long GC_AFTER_CANCEL_MILLIS = 2_000;

    private static final Schema INPUT = new Schema(List.of(
            Field.nullable("a", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE))));

    private final boolean ordered;
    private DeviceContext ctx;
    private PinnedAllocationFactory factory;
    private BufferAllocator pinned;
    private RootAllocator plain;
    private VectorSchemaRoot batch;
    private ArrowPipeline pipeline;
    private ArrowPipeline closed;

    ArrowPipelineTck(boolean ordered) {
        super(new TestEnvironment(TIMEOUT_MILLIS, NO_SIGNALS_MILLIS), GC_AFTER_CANCEL_MILLIS);
        this.ordered = ordered;
    }

    private ArrowPipeline build() {
        return ArrowPipeline.builder(ctx, pinned).lanes(2).capacity(1, 1024).passThrough("a")
                .stage((lane, in, out) -> null) // the pass-through copy on the device is the whole work
                .build();
    }

    /** Opens the context, the allocators, the input batch and the pipelines every test of the class shares. */
    @BeforeClass
    public void open() {
        ctx = DeviceContext.open(Api.CPU, 0);
        factory = PinnedAllocationFactory.of(ctx);
        pinned = factory.newRootAllocator(Long.MAX_VALUE);
        plain = new RootAllocator();
        batch = VectorSchemaRoot.create(INPUT, plain);
        batch.allocateNew();
        ((Float4Vector) batch.getVector("a")).setSafe(0, 1.5f);
        batch.setRowCount(1);
        pipeline = build();
        closed = build();
        closed.close();
    }

    /** Closes what {@link #open} opened; fails if a result's memory is still allocated. */
    @AfterClass(alwaysRun = true)
    public void close() {
        if (pipeline != null) {
            pipeline.close();
            pipeline.released().orTimeout(TIMEOUT_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS).join();
        }
        if (pinned != null) {
            pinned.close(); // Arrow's leak check: every result was released
        }
        if (batch != null) {
            batch.close();
            plain.close();
        }
        if (ctx != null) {
            factory.close();
            ctx.close();
        }
    }

    @Override
    public Publisher<VectorSchemaRoot> createPublisher(long elements) {
        Flux<VectorSchemaRoot> batches = Flux.generate(() -> 0L, (i, sink) -> {
            if (i >= elements) {
                sink.complete();
            } else {
                sink.next(batch);
            }
            return i + 1;
        });
        Flux<VectorSchemaRoot> results = ordered ? pipeline.process(batches) : pipeline.processUnordered(batches);
        return results.doOnNext(VectorSchemaRoot::close);
    }

    @Override
    public Publisher<VectorSchemaRoot> createFailedPublisher() {
        Flux<VectorSchemaRoot> results = ordered ? closed.process(Flux.just(batch)) : closed.processUnordered(Flux.just(batch));
        return results.doOnNext(VectorSchemaRoot::close);
    }

    /** Each subscription runs its chunks anew, so two subscribers get equal results, never the same objects. */
    private static final String NOT_MULTICAST = "not applicable: each subscription runs its input anew on the device and"
            + " emits results of its own, and VectorSchemaRoot compares by identity, so two subscribers never see the same"
            + " elements (the rule's optional multicast does not apply to a cold publisher); multiple subscriptions are supported"
            + " (optional_spec111_maySupportMultiSubscribe)";

    @Override
    @Test
    public void optional_spec111_multicast_mustProduceTheSameElementsInTheSameSequenceToAllOfItsSubscribersWhenRequestingOneByOne() {
        throw new SkipException(NOT_MULTICAST);
    }

    @Override
    @Test
    public void optional_spec111_multicast_mustProduceTheSameElementsInTheSameSequenceToAllOfItsSubscribersWhenRequestingManyUpfront() {
        throw new SkipException(NOT_MULTICAST);
    }

    @Override
    @Test
    public void optional_spec111_multicast_mustProduceTheSameElementsInTheSameSequenceToAllOfItsSubscribersWhenRequestingManyUpfrontAndCompleteAsExpected() {
        throw new SkipException(NOT_MULTICAST);
    }
}
