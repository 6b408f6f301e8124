package dev.sluice.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DType;
import dev.sluice.DeviceContext;
import dev.sluice.SluiceProperties;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/**
 * Every pipeline test again with every chunk copied into staging, and every result out of it, off the drain loop
 * ({@code sluice.pipeline.parallelCopyBytes} 0; by default only chunks of 1 MiB or more are), BlockHound included; and
 * what is particular to those copies: they run on several threads at once, and a codec that throws there fails the
 * {@code Flux} with its exception, as it does on the drain loop.
 */
class ParallelHostCopyGpuPipelineTest extends GpuPipelineTest {

    private static @Nullable String before;

    @BeforeAll
    static void open() { // JUnit may run GpuPipelineTest.open before it: useContext closes that context
        before = System.getProperty(SluiceProperties.PIPELINE_PARALLEL_COPY_BYTES);
        System.setProperty(SluiceProperties.PIPELINE_PARALLEL_COPY_BYTES, "0");
        useContext(DeviceContext.open());
    }

    @AfterAll
    static void restore() {
        if (before == null) {
            System.clearProperty(SluiceProperties.PIPELINE_PARALLEL_COPY_BYTES);
        } else {
            System.setProperty(SluiceProperties.PIPELINE_PARALLEL_COPY_BYTES, before);
        }
    }

    /** {@link Chunks#floats()}, for the codecs below to change one part of. */
    private interface Floats extends ChunkCodec<float[]> {
        @Override
        default boolean accepts(DType type) {
            return Chunks.floats().accepts(type);
        }

        @Override
        default long elements(float[] chunk, DType type) {
            return Chunks.floats().elements(chunk, type);
        }

        @Override
        default void copyTo(float[] chunk, MemorySegment staging) {
            Chunks.floats().copyTo(chunk, staging);
        }
    }

    /** Copies a float[] chunk, noting the thread; throws for the chunk whose first element is {@code failOn}. */
    private record Watched(Set<String> threads, float failOn) implements Floats {
        @Override
        public void copyTo(float[] chunk, MemorySegment staging) {
            threads.add(Thread.currentThread().getName());
            if (chunk[0] == failOn) {
                throw new IllegalStateException("codec refuses chunk " + chunk[0]);
            }
            Chunks.floats().copyTo(chunk, staging);
        }

        @Override
        public float[] read(MemorySegment result, DType type, long elements) {
            threads.add(Thread.currentThread().getName());
            return Chunks.floats().read(result, type, elements);
        }
    }

    /**
     * Allocates each result itself (filled in pieces by the copy threads), noting the thread; its allocation number
     * {@code failAt} (from 1) throws.
     */
    private record Allocating(Set<String> threads, AtomicInteger calls, int failAt) implements Floats {
        @Override
        public float[] read(MemorySegment result, DType type, long elements) {
            throw new AssertionError("a sink that allocates its results is never asked to read one");
        }

        @Override
        public float @Nullable [] allocate(DType type, long elements) {
            threads.add(Thread.currentThread().getName());
            if (calls.incrementAndGet() == failAt) {
                throw new IllegalStateException("allocation " + failAt + " refused");
            }
            return new float[(int) elements];
        }

        @Override
        public @Nullable MemorySegment segment(float[] result) {
            return MemorySegment.ofArray(result);
        }
    }

    private static List<float[]> chunks(int count, int n) {
        return java.util.stream.IntStream.range(0, count).mapToObj(i -> {
            float[] c = new float[n];
            java.util.Arrays.fill(c, i);
            return c;
        }).toList();
    }

    @Test
    void copiesRunOffTheDrainLoopAndResultsKeepTheirOrder() {
        runOnHostThreads(48, threads -> new Watched(threads, -1), "copied", "sluice-host-copy-");
    }

    @Test
    void resultsASinkAllocatesAreAllocatedOnTheResultThreadsNotTheCopyOrCompletionThreads() {
        runOnHostThreads(24, threads -> new Allocating(threads, new AtomicInteger(), -1), "allocated",
                "sluice-host-result-");
    }

    /**
     * Runs {@code count} chunks of 4096 floats over 3 lanes through the codec {@code noting} makes, which notes in the
     * set it is given the threads it runs on; asserts the results come out in order and every thread noted is named
     * {@code prefix}...
     */
    private void runOnHostThreads(int count, Function<Set<String>, Floats> noting, String what, String prefix) {
        Set<String> threads = ConcurrentHashMap.newKeySet();
        try (GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(3).chunkElements(4096, DType.F32).inPlace()
                .stage((lane, in, out) -> null).build(noting.apply(threads))) {
            List<float[]> out = p.process(Flux.fromIterable(chunks(count, 4096))).collectList()
                    .block(Duration.ofSeconds(60));
            assertEquals(count, out.size());
            for (int i = 0; i < count; i++) {
                assertEquals(i, out.get(i)[0]);
                assertEquals(i, out.get(i)[4095]);
            }
        }
        assertTrue(!threads.isEmpty() && threads.stream().allMatch(t -> t.startsWith(prefix)),
                () -> what + " on " + threads);
    }

    @Test
    void aResultIsAllocatedWhileTheDeviceStillWorksOnItsChunk() {
        CompletableFuture<Void> release = new CompletableFuture<>();
        AtomicInteger allocations = new AtomicInteger();
        Allocating sink = new Allocating(ConcurrentHashMap.newKeySet(), allocations, -1);
        try (GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(2).chunkElements(4096, DType.F32).inPlace()
                .stage((lane, in, out) -> lane.stream().waitFor(release)) // the chunk's work waits for the test
                .build(sink)) {
            CompletableFuture<List<float[]>> out = p.process(Flux.fromIterable(chunks(2, 4096))).collectList().toFuture();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (allocations.get() < 2 && System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            assertEquals(2, allocations.get(), "both results allocated before their chunks' work could end");
            assertTrue(!out.isDone(), "no result yet");
            release.complete(null);
            List<float[]> results = out.join();
            assertEquals(2, results.size());
            assertEquals(1f, results.get(1)[4095]);
        }
    }

    @Test
    void aSinkWhoseAllocationThrowsFailsTheFlux() {
        AtomicReference<Throwable> error = new AtomicReference<>();
        try (GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(2).chunkElements(1024, DType.F32).inPlace()
                .stage((lane, in, out) -> null)
                .build(new Allocating(ConcurrentHashMap.newKeySet(), new AtomicInteger(), 5))) {
            List<float[]> out = p.process(Flux.fromIterable(chunks(20, 1024))).doOnError(error::set).onErrorComplete()
                    .collectList().block(Duration.ofSeconds(60));
            assertInstanceOf(IllegalStateException.class, error.get(), () -> "the sink's exception: " + error.get());
            assertTrue(out.size() < 20, () -> out.size() + " results: not every chunk's");
        }
    }

    @Test
    void aCodecThatThrowsOffTheDrainLoopFailsTheFlux() {
        AtomicReference<Throwable> error = new AtomicReference<>();
        try (GpuPipeline<float[], float[]> p = GpuPipeline.builder(ctx).lanes(2).chunkElements(1024, DType.F32).inPlace()
                .stage((lane, in, out) -> null).build(new Watched(ConcurrentHashMap.newKeySet(), 5))) {
            List<float[]> out = p.process(Flux.fromIterable(chunks(20, 1024))).doOnError(error::set).onErrorComplete()
                    .collectList().block(Duration.ofSeconds(60));
            assertInstanceOf(IllegalStateException.class, error.get(), () -> "the codec's exception: " + error.get());
            assertTrue(out.size() <= 5, () -> out.size() + " results: none from chunk 5 on");
            for (int i = 0; i < out.size(); i++) {
                assertEquals(i, out.get(i)[0]);
            }
        }
    }
}
