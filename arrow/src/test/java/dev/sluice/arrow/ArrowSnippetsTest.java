package dev.sluice.arrow;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DType;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceStream;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.kernel.Kernels;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;

/**
 * docs/arrow.md's snippets, written out as a new user would from the page. The pipeline's output is not nullable, as
 * the page has it: a nullable one comes back with the bitmap the stage writes, which this stage does not.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ArrowSnippetsTest {

    static final Kernel DOUBLE = Kernels.elementwise("twice")
            .input(KernelParam.pointer("x", DType.F32))
            .output(KernelParam.pointer("y", DType.F32))
            .body("y = 2.0f * x")
            .build();

    static final Kernel FMA = Kernels.elementwise("fma_ab")
            .input(KernelParam.pointer("a", DType.F32))
            .input(KernelParam.pointer("b", DType.F32))
            .output(KernelParam.pointer("y", DType.F32))
            .body("y = a * b + 1.0f")
            .build();

    @Test
    void firstSnippet() {
        Kernel kernel = DOUBLE;
        int n = 10;
        try (DeviceContext ctx = DeviceContext.open();
             RootAllocator allocator = PinnedAllocationFactory.of(ctx).newRootAllocator(Long.MAX_VALUE);
             Float4Vector x = new Float4Vector("x", allocator);
             Float4Vector y = new Float4Vector("y", allocator);
             DeviceStream s = ctx.createStream(); DeviceFunction f = ctx.compile(kernel)) {
            x.allocateNew(n);
            for (int i = 0; i < n; i++) {
                x.set(i, i);
            }
            x.setValueCount(n);
            try (DeviceColumn dx = ArrowColumns.upload(s, x);                       // DMA: x's buffers are pinned
                 DeviceColumn dy = DeviceColumn.allocate(ctx, DType.F32, n, false)) {
                s.enqueueLaunch(f, LaunchConfig.forElements(n), dx.data(), dy.data(), (long) n);
                ArrowColumns.download(s, dy, y).join();                             // DMA into y's pinned buffers
            }
            assertEquals(n, y.getValueCount());
            assertEquals(18f, y.get(9));
        }
    }

    @Test
    void pipelineSnippet() {
        int rows = 5;
        try (DeviceContext ctx = DeviceContext.open()) {
            PinnedAllocationFactory factory = PinnedAllocationFactory.of(ctx);
            try (RootAllocator allocator = factory.newRootAllocator(Long.MAX_VALUE);
                 ArrowPipeline pipeline = ArrowPipeline.builder(ctx, allocator)
                     .capacity(1 << 16, 1 << 20)        // the largest batch: rows, and bytes of its column buffers
                     .passThrough("name")               // an input column (Utf8 too), copied into the result on the device
                     .output(Field.notNullable("y", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)))
                     .kernel(FMA)
                     .stage((lane, in, out) -> lane.stream().enqueueLaunch(lane.function(FMA),
                             LaunchConfig.forElements(in.rowCount()), in.column("a").data(), in.column("b").data(),
                             out.column("y").data(), (long) in.rowCount()))
                     .build();
                 Float4Vector a = new Float4Vector("a", allocator);
                 Float4Vector b = new Float4Vector("b", allocator);
                 VarCharVector name = new VarCharVector("name", allocator)) {
                a.allocateNew(rows);
                b.allocateNew(rows);
                name.allocateNew(rows);
                for (int i = 0; i < rows; i++) {
                    a.set(i, i);
                    b.set(i, 2);
                    name.setSafe(i, ("row" + i).getBytes());
                }
                try (VectorSchemaRoot batch = VectorSchemaRoot.of(a, b, name)) {
                    batch.setRowCount(rows);
                    List<String> got = new java.util.ArrayList<>();
                    pipeline.process(Flux.just(batch)).doOnNext(result -> {
                        got.add(result.getVector("name").getObject(4) + "=" + result.getVector("y").getObject(4));
                        assertEquals(0, pipeline.metrics().hostAllocations());
                        result.close();
                    }).blockLast();
                    assertEquals(List.of("row4=9.0"), got);
                }
            }
            factory.close();
        }
    }

    @Test
    void factorySnippet() {
        try (DeviceContext ctx = DeviceContext.open()) {
            try (PinnedAllocationFactory factory = PinnedAllocationFactory.of(ctx, 512L << 20);  // pool limit; of(ctx): 256 MiB
                 RootAllocator allocator = factory.newRootAllocator(Long.MAX_VALUE)) {
                for (int round = 0; round < 3; round++) {
                    try (Float4Vector v = new Float4Vector("v", allocator)) {
                        v.allocateNew(1000);
                    }
                }
                factory.allocations();   // buffers pinned so far; stops growing in a steady state
                factory.reuses();        // allocations served from the pool
                factory.pooledBytes();   // bytes the pool holds now
                assertTrue(factory.reuses() >= 1);
            }
            assertEquals(256L << 20, PinnedAllocationFactory.DEFAULT_POOL_BYTES);
            try (PinnedAllocationFactory f = PinnedAllocationFactory.of(ctx)) {
                assertEquals(256L << 20, f.poolLimit());
            }
        }
    }
}
