package dev.sluice.examples;

import dev.sluice.DType;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceStream;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import dev.sluice.arrow.ArrowColumns;
import dev.sluice.arrow.DeviceBatch;
import dev.sluice.arrow.DeviceColumn;
import dev.sluice.arrow.PinnedAllocationFactory;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Arrow IPC in and out: reads the record batches of an Arrow IPC file (writing one of columns {@code a} and {@code b}
 * first if it is absent) into vectors of Sluice's pinned allocator, runs {@code y = a * b + 1} on the device with a
 * kernel written once, writes the batches with the column {@code y} to a second IPC file, and checks every value against
 * the same computation on the host. Arguments: {@code [input.arrow [output.arrow]]}, by default in the temporary
 * directory.
 */
public final class ArrowIpc {

    /** {@code y = a * b + 1} for every row; takes (a, b, y, n). */
    static final Kernel FMA = Kernel.elementwise("fma_plus_one")
            .input(KernelParam.pointer("a", DType.F32))
            .input(KernelParam.pointer("b", DType.F32))
            .output(KernelParam.pointer("y", DType.F32))
            .body("y = a * b + 1.0f")
            .build();

    static final Schema INPUT = new Schema(List.of(column("a"), column("b")));
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
            if (!Files.exists(in)) {
                writeInput(allocator, in, 3, 100_000);
                System.out.println("wrote " + in.getFileName());
            }
            long rows = 0;
            long checked = 0;
            try (DeviceStream stream = ctx.createStream(); DeviceFunction fma = ctx.compile(FMA);
                    FileChannel inChannel = FileChannel.open(in);
                    ArrowFileReader reader = new ArrowFileReader(inChannel, allocator);
                    VectorSchemaRoot result = VectorSchemaRoot.create(OUTPUT, allocator);
                    FileChannel outChannel = FileChannel.open(out, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                            StandardOpenOption.TRUNCATE_EXISTING);
                    ArrowFileWriter writer = new ArrowFileWriter(result, null, outChannel)) {
                writer.start();
                while (reader.loadNextBatch()) {
                    VectorSchemaRoot batch = reader.getVectorSchemaRoot(); // its buffers are pinned: copied by DMA
                    int n = batch.getRowCount();
                    try (DeviceBatch device = ArrowColumns.upload(stream, batch);
                            DeviceColumn y = DeviceColumn.allocate(ctx, DType.F32, n, false)) {
                        if (n > 0) {
                            stream.enqueueLaunch(fma, LaunchConfig.forElements(n), device.column("a").data(),
                                    device.column("b").data(), y.data(), (long) n);
                        }
                        DeviceBatch back = DeviceBatch.of(Map.of("y", y));
                        ArrowColumns.download(stream, device, result).thenCompose(
                                v -> ArrowColumns.download(stream, back, result)).get(60, TimeUnit.SECONDS);
                    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                        throw new IllegalStateException("the batch did not come back", e);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("interrupted", e);
                    }
                    checked += check(result);
                    rows += n;
                    writer.writeBatch();
                }
                writer.end();
            }
            System.out.println("rows " + rows + ", checked " + checked + " against the host");
            System.out.println("wrote " + out.getFileName());
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
