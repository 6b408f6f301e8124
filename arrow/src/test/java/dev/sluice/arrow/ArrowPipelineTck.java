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
import org.testng.annotations.BeforeClass;
import reactor.core.publisher.Flux;

/**
 * The Reactive Streams TCK's publisher rules against {@link ArrowPipeline}'s {@code Flux}es on the CPU backend (TestNG,
 * run by the JUnit Platform's TestNG engine): {@link ArrowPipelineOrderedTckTest} for {@link ArrowPipeline#process},
 * {@link ArrowPipelineUnorderedTckTest} for {@link ArrowPipeline#processUnordered}. Every required rule must pass; the
 * TCK skips, with its reason, the optional ones a publisher of {@code n} elements cannot show and the rules it cannot
 * test.
 *
 * <p>A publisher of {@code n} elements is the pipeline over one one-row batch emitted {@code n} times (the caller may
 * reuse a batch once it has been emitted), its column passed through on the device; the failed publisher is a closed
 * pipeline's. The TCK's subscribers do not close the results they receive, so the allocator of the results is not
 * checked for leaks here: the context's close releases the pinned memory under them (ArrowPipelineTest checks that a
 * subscriber that closes its results leaves nothing behind).
 */
abstract class ArrowPipelineTck extends PublisherVerification<VectorSchemaRoot> {

    /** How long the TCK waits for an expected signal: generous, since the build machine may be shared and loaded. */
    static final long TIMEOUT_MILLIS = 5_000;
    /** How long it watches for a signal that must not come. */
    static final long NO_SIGNALS_MILLIS = 100;

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
        super(new TestEnvironment(TIMEOUT_MILLIS, NO_SIGNALS_MILLIS));
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

    /** Closes what {@link #open} opened but the results' allocator (see the class description). */
    @AfterClass(alwaysRun = true)
    public void close() {
        if (pipeline != null) {
            pipeline.close();
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
        return ordered ? pipeline.process(batches) : pipeline.processUnordered(batches);
    }

    @Override
    public Publisher<VectorSchemaRoot> createFailedPublisher() {
        return ordered ? closed.process(Flux.just(batch)) : closed.processUnordered(Flux.just(batch));
    }
}
