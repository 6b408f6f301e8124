package dev.sluice.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.DeviceContext;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ArrowIpcTest {

    @Test
    void writesTheInputThenComputesEveryRowOnTheDeviceAsTheHostDoes(@TempDir Path dir) throws Exception {
        Path in = dir.resolve("in.arrow");
        Path out = dir.resolve("out.arrow");
        List<String> lines;
        try (DeviceContext ctx = DeviceContext.open(Api.CPU, 0)) {
            lines = Stdout.lines(() -> {
                try {
                    ArrowIpc.run(ctx, in, out);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
        }
        assertTrue(lines.contains("wrote " + in.toAbsolutePath() + " (the input: 3 batches of 100000 rows)"),
                "where the file is, in full: " + lines);
        assertTrue(lines.contains("wrote " + out.toAbsolutePath() + " (the input with the column y)"), lines.toString());
        assertTrue(lines.contains("rows 300000, checked 300000 against the host"), lines.toString());
        assertTrue(Files.size(out) > 3 * 300_000 * 4);
        try (RootAllocator allocator = new RootAllocator(); FileChannel channel = FileChannel.open(out);
                ArrowFileReader reader = new ArrowFileReader(channel, allocator)) {
            assertEquals(List.of("a", "b", "y"), reader.getVectorSchemaRoot().getSchema().getFields().stream()
                    .map(f -> f.getName()).toList());
            assertEquals(3, reader.getRecordBlocks().size());
        }
    }
}
