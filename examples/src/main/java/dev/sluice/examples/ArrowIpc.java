package dev.sluice.examples;

import dev.sluice.DType;
import dev.sluice.DeviceContext;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.arrow.ArrowPipeline;
import dev.sluice.arrow.PinnedAllocationFactory;
import dev.sluice.kernel.Kernels;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;

/**
 * Arrow IPC in and out: reads the record batches of an Arrow IPC file (writing one of columns {@code a} and {@code b}
 * first if it is absent) into vectors of Sluice's pinned allocator, runs {@code y = a * b + 1} on the device with a
 * kernel written once, batch after batch through an {@link ArrowPipeline} (whose results are pinned vectors too), writes
 * the batches with the column {@code y} to a second IPC file, and checks every value against
 * the same computation on the host. Arguments: {@code [input.arrow [output.arrow]]}, by default in the temporary
 * directory.
 */
public final class ArrowIpc {

    /** {@code y = a * b + 1} for every row; takes (a, b, y, n). */
    static final Kernel FMA = Kernels.elementwise("fma_plus_one")
            .input(KernelParam.pointer("a", DType.F32))
            .input(KernelParam.pointer("b", DType.F32))
            .output(KernelParam.pointer("y", DType.F32))
            .body("y = a * b + 1.0f")
            .build();

    static final Schema INPUT = new Schema(List.of(column("a"), column("b")));
    /** The most rows of a batch the pipeline takes (the input this example writes has 100,000). */
    static final int MAX_ROWS = 1 << 17;

    static final Schema OUTPUT = new Schema(List.of(column("a"), column("b"), column("y")));

    private ArrowIpc() {
    }

    public static void main(String[] args) throws IOException {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        Path in = args.length > 0 ? Path.of(args[0]) : tmp.resolve("sluice-arrow-input.arrow");
        Path out = args.length > 1 ? Path.of(args[1]) : tmp.resolve("sluice-arrow-output.arrow");
        try (DeviceContext ctx = DeviceContext.open()) {
            run(ctx, in, out);
        }
    }

    static void run(DeviceContext ctx, Path in, Path out) throws IOException {
        Examples.printDevice(ctx);
        try (RootAllocator allocator = PinnedAllocationFactory.of(ctx).newRootAllocator(Long.MAX_VALUE)) {
            // Full paths: by default the files are in java.io.tmpdir, not where the user ran the example.
            if (!Files.exists(in)) {
                writeInput(allocator, in, 3, 100_000);
                System.out.println("wrote " + in.toAbsolutePath() + " (the input: 3 batches of 100000 rows)");
            } else {
                System.out.println("read " + in.toAbsolutePath() + " (delete it for a new input)");
            }
            long[] rows = {0};
            long[] checked = {0};
            try (ArrowPipeline pipeline = ArrowPipeline.builder(ctx, allocator)
                    .capacity(MAX_ROWS, 2L * MAX_ROWS * Float.BYTES + 256)
                    .passThrough("a").passThrough("b")
                    .output(column("y"))
                    .kernel(FMA)
                    .stage((lane, batch, result) -> lane.stream().enqueueLaunch(lane.function(FMA),
                            LaunchConfig.forElements(batch.rowCount()), batch.column("a").data(), batch.column("b").data(),
                            result.column("y").data(), (long) batch.rowCount()))
                    .build();
                    FileChannel inChannel = FileChannel.open(in);
                    ArrowFileReader reader = new ArrowFileReader(inChannel, allocator);
                    VectorSchemaRoot written = VectorSchemaRoot.create(OUTPUT, allocator);
                    FileChannel outChannel = FileChannel.open(out, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                            StandardOpenOption.TRUNCATE_EXISTING);
                    ArrowFileWriter writer = new ArrowFileWriter(written, null, outChannel)) {
                writer.start();
                // The reader loads each batch into the same root, whose buffers are pinned (copied by DMA): the pipeline
                // holds the buffers of a batch it has received until it has copied them, so the next load may follow.
                Flux<VectorSchemaRoot> batches = Flux.generate(sink -> {
                    try {
                        if (reader.loadNextBatch()) {
                            sink.next(reader.getVectorSchemaRoot());
                        } else {
                            sink.complete();
                        }
                    } catch (IOException e) {
                        sink.error(e);
                    }
                });
                pipeline.process(batches).doOnNext(result -> {
                    try (result; ArrowRecordBatch moved = new VectorUnloader(result).getRecordBatch()) {
                        new VectorLoader(written).load(moved); // the result's vectors, referenced, not copied
                        checked[0] += check(written);
                        rows[0] += written.getRowCount();
                        writer.writeBatch();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }).blockLast(Duration.ofSeconds(120));
                writer.end();
            }
            long rowsDone = rows[0];
            long checkedDone = checked[0];
            System.out.println("rows " + rowsDone + ", checked " + checkedDone + " against the host");
            System.out.println("wrote " + out.toAbsolutePath() + " (the input with the column y)");
        }
    }

    /**
     * The number of rows of {@code result} whose y is a * b + 1 as the host computes it, rounded once (a fused
     * multiply-add, which GPU compilers make of it) or twice (as the CPU backend's Java does); throws at the first other.
     */
    private static long check(VectorSchemaRoot result) {
        Float4Vector a = (Float4Vector) result.getVector("a");
        Float4Vector b = (Float4Vector) result.getVector("b");
        Float4Vector y = (Float4Vector) result.getVector("y");
        for (int i = 0; i < result.getRowCount(); i++) {
            float expected = a.get(i) * b.get(i) + 1.0f;
            float fused = Math.fma(a.get(i), b.get(i), 1.0f);
            int got = Float.floatToIntBits(y.get(i));
            if (got != Float.floatToIntBits(expected) && got != Float.floatToIntBits(fused)) {
                throw new IllegalStateException("row " + i + ": y = " + y.get(i) + " but the host computes " + expected);
            }
        }
        return result.getRowCount();
    }

    /** An IPC file of {@code batches} record batches of {@code rows} rows each, columns a = i / 7 and b = 3 - i / 11. */
    static void writeInput(RootAllocator allocator, Path file, int batches, int rows) throws IOException {
        try (VectorSchemaRoot root = VectorSchemaRoot.create(INPUT, allocator);
                FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING);
                ArrowFileWriter writer = new ArrowFileWriter(root, null, channel)) {
            writer.start();
            Float4Vector a = (Float4Vector) root.getVector("a");
            Float4Vector b = (Float4Vector) root.getVector("b");
            for (int k = 0; k < batches; k++) {
                root.allocateNew();
                for (int i = 0; i < rows; i++) {
                    a.setSafe(i, (k * rows + i) / 7.0f);
                    b.setSafe(i, 3.0f - i / 11.0f);
                }
                root.setRowCount(rows);
                writer.writeBatch();
            }
            writer.end();
        }
    }

    private static Field column(String name) {
        return Field.notNullable(name, new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
    }
}
