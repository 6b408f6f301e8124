package dev.sluice.reactive;

import dev.sluice.Api;
import dev.sluice.DType;
import dev.sluice.DeviceContext;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.reactivestreams.tck.PublisherVerification;
import org.reactivestreams.tck.TestEnvironment;
import org.testng.annotations.AfterClass;
import org.testng.SkipException;
import org.testng.annotations.BeforeClass;
import org.testng.annotations.Test;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;

/**
 * The Reactive Streams TCK's publisher rules against {@link GpuPipeline}'s {@code Flux}es on the CPU backend (TestNG,
 * run by the JUnit Platform's TestNG engine): {@link GpuPipelineOrderedTckTest} for {@link GpuPipeline#process},
 * {@link GpuPipelineUnorderedTckTest} for {@link GpuPipeline#processUnordered}, and
 * {@link GpuPipelineHostSchedulerTckTest} for {@code process} with its drain loop on a host scheduler's worker. Every required rule must pass; the TCK
 * skips, with its reason, the optional ones a publisher of {@code n} elements cannot show and the rules it cannot test.
 *
 * <p>A publisher of {@code n} elements is the pipeline over {@code n} one-element chunks (an identity copy on the
 * device); the failed publisher is a pipeline that is closed, whose subscribers get {@code onSubscribe} then
 * {@code onError(ClosedResourceException)}. One context and two lanes serve every test of a class.
 */
abstract class GpuPipelineTck extends PublisherVerification<float[]> {

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

    private final boolean ordered;
    /** Where the pipeline's drain loop runs; null: on the signalling threads. */
    private final @Nullable Scheduler hostScheduler;
    private DeviceContext ctx;
    private GpuPipeline<float[], float[]> pipeline;
    private GpuPipeline<float[], float[]> closed;

    GpuPipelineTck(boolean ordered, @Nullable Scheduler hostScheduler) {
        super(new TestEnvironment(TIMEOUT_MILLIS, NO_SIGNALS_MILLIS), GC_AFTER_CANCEL_MILLIS);
        this.ordered = ordered;
        this.hostScheduler = hostScheduler;
    }

    private GpuPipeline<float[], float[]> build() {
        GpuPipeline.Builder b = GpuPipeline.builder(ctx).lanes(2).chunkElements(1, DType.F32)
                .stage((lane, in, out) -> lane.stream().enqueueCopy(in, out));
        if (hostScheduler != null) {
            b.hostScheduler(hostScheduler);
        }
        return b.build(Chunks.floats());
    }

    /** Opens the context and the pipelines every test of the class shares. */
    @BeforeClass
    public void open() {
        ctx = DeviceContext.open(Api.CPU, 0);
        pipeline = build();
        closed = build();
        closed.close();
    }

    /** Closes them once every test of the class has run. */
    @AfterClass(alwaysRun = true)
    public void close() {
        if (pipeline != null) {
            pipeline.close();
        }
        if (ctx != null) {
            ctx.close();
        }
    }

    @Override
    public Publisher<float[]> createPublisher(long elements) {
        Flux<float[]> chunks = Flux.generate(() -> 0L, (i, sink) -> {
            if (i >= elements) {
                sink.complete();
            } else {
                sink.next(new float[] {i});
            }
            return i + 1;
        });
        return ordered ? pipeline.process(chunks) : pipeline.processUnordered(chunks);
    }

    @Override
    public Publisher<float[]> createFailedPublisher() {
        return ordered ? closed.process(Flux.just(new float[1])) : closed.processUnordered(Flux.just(new float[1]));
    }

    /** Each subscription runs its chunks anew, so two subscribers get equal results, never the same objects. */
    private static final String NOT_MULTICAST = "not applicable: each subscription runs its input anew on the device and"
            + " emits results of its own, and float[] compares by identity, so two subscribers never see the same elements"
            + " (the rule's optional multicast does not apply to a cold publisher); multiple subscriptions are supported"
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
