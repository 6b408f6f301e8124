package dev.sluice.flink;

import dev.sluice.InvalidArgumentException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.Serial;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.flink.api.common.typeinfo.TypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.jspecify.annotations.Nullable;

/**
 * An Arrow record batch as a Flink element: the batch in Arrow's IPC streaming format (its schema, the one record
 * batch, the end-of-stream marker) in a byte array, which Flink serializes between operators as it would any byte
 * array ({@link #TYPE}, found by Flink's type extraction through the class's {@link TypeInfo} annotation). Arrow's own
 * vectors cannot travel: their memory is off the Java heap, owned by an allocator of one process. PyFlink carries its
 * Arrow batches between the JVM and Python the same way, as IPC stream bytes.
 *
 * <p>Make one with {@link #of(VectorSchemaRoot)} where the batch is built, turn it back into vectors with
 * {@link #read(BufferAllocator)} where it is used; {@link ArrowBatches#kernel} builds a GPU stage over them. Immutable.
 * Arrow IPC views buffers as {@code ByteBuffer}s: the JVM needs {@code --add-opens=java.base/java.nio=ALL-UNNAMED},
 * which Flink's shipped {@code config.yaml} passes to every process ({@code env.java.opts.all}).
 */
@TypeInfo(ArrowBatchTypeInfo.Factory.class)
public final class ArrowBatch implements Serializable {

    @Serial
    private static final long serialVersionUID = 1L;

    /** Flink's type of this class: {@code .returns(ArrowBatch.TYPE)} after an operator whose output Flink cannot see. */
    public static final TypeInformation<ArrowBatch> TYPE = new ArrowBatchTypeInfo();

    /** The IPC stream: schema, one record batch, end of stream. */
    private final byte[] ipc;
    /** The batch's row count, for messages without reading the stream. */
    private final int rowCount;
    /** The batch's column count, for messages. */
    private final int columnCount;

    ArrowBatch(byte[] ipc, int rowCount, int columnCount) {
        this.ipc = ipc;
        this.rowCount = rowCount;
        this.columnCount = columnCount;
    }

    /**
     * The batch {@code root} holds now, written out in Arrow's IPC streaming format; {@code root} is left as it was
     * (the caller still owns and closes it). Each column travels with its own value count, as IPC writes it.
     *
     * @throws InvalidArgumentException naming {@code root} if it is null, has no columns, or has a dictionary-encoded
     *                                  column (a batch carries no dictionaries)
     */
    public static ArrowBatch of(VectorSchemaRoot root) {
        if (root == null) {
            throw new InvalidArgumentException("root", "must not be null");
        }
        if (root.getFieldVectors().isEmpty()) {
            throw new InvalidArgumentException("root", "has no columns");
        }
        for (Field f : root.getSchema().getFields()) {
            String encoded = dictionaryEncoded(f);
            if (encoded != null) {
                // Else Arrow's writer, given no dictionaries, throws a NullPointerException.
                throw new InvalidArgumentException("root", "column " + encoded + " is dictionary-encoded; an ArrowBatch"
                        + " carries no dictionaries: decode it first (DictionaryEncoder.decode)");
            }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ArrowStreamWriter writer = new ArrowStreamWriter(root, null, Channels.newChannel(out))) {
            writer.start();
            writer.writeBatch();
            writer.end();
        } catch (IOException e) {
            throw new UncheckedIOException("writing " + root.getRowCount() + " rows as Arrow IPC", e);
        }
        return new ArrowBatch(out.toByteArray(), root.getRowCount(), root.getFieldVectors().size());
    }

    /**
     * The batch as vectors of {@code allocator}: a new root that the caller owns and closes. Its buffers are slices of
     * one buffer of {@code allocator} holding the batch's body (pinned memory, for an allocator of a
     * {@code PinnedAllocationFactory}).
     *
     * @throws InvalidArgumentException naming {@code allocator} if it is null, or {@code batch} if the bytes are not one
     *                                  Arrow IPC stream of a schema and a record batch, or a column's value count
     *                                  differs from the batch's row count (Arrow's loader would silently give every
     *                                  column the batch's count); nothing stays allocated then
     */
    public VectorSchemaRoot read(BufferAllocator allocator) {
        if (allocator == null) {
            throw new InvalidArgumentException("allocator", "must not be null");
        }
        Schema schema;
        ArrowRecordBatch body;
        try {
            ReadChannel in = new ReadChannel(Channels.newChannel(new ByteArrayInputStream(ipc)));
            schema = MessageSerializer.deserializeSchema(in);
            body = MessageSerializer.deserializeRecordBatch(in, allocator);
        } catch (IOException | IndexOutOfBoundsException | IllegalArgumentException e) {
            // Bytes that are no IPC stream; an allocator's refusal (closed, out of memory) goes through as it is.
            throw new InvalidArgumentException("batch", this + " is not an Arrow IPC stream of a schema and a record"
                    + " batch: " + e);
        }
        try (body) {
            checkLengths(schema.getFields(), body);
            VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
            try {
                new VectorLoader(root).load(body); // the vectors take references to the body's buffer
            } catch (RuntimeException e) {
                root.close();
                throw e;
            }
            return root;
        }
    }

    /** Refuses a batch whose top-level columns' value counts differ from its row count. */
    private void checkLengths(List<Field> fields, ArrowRecordBatch body) {
        List<ArrowFieldNode> nodes = body.getNodes();
        int node = 0;
        for (Field f : fields) {
            if (node >= nodes.size()) {
                throw new InvalidArgumentException("batch", this + " has " + nodes.size() + " field nodes, too few for its "
                        + fields.size() + " columns");
            }
            int length = nodes.get(node).getLength();
            if (length != body.getLength()) {
                throw new InvalidArgumentException("batch", "column " + f.getName() + " has " + length
                        + " values but the batch has " + body.getLength() + " rows");
            }
            node += nodeCount(f);
        }
    }

    /** The name of {@code f} or of a child of it that is dictionary-encoded, or null if none is. */
    private static @Nullable String dictionaryEncoded(Field f) {
        if (f.getDictionary() != null) {
            return f.getName();
        }
        for (Field child : f.getChildren()) {
            String encoded = dictionaryEncoded(child);
            if (encoded != null) {
                return f.getName() + "." + encoded;
            }
        }
        return null;
    }

    /** The field nodes IPC writes for {@code f}: its own and, depth first, its children's. */
    private static int nodeCount(Field f) {
        int n = 1;
        for (Field child : f.getChildren()) {
            n += nodeCount(child);
        }
        return n;
    }

    /** The number of rows, as the batch's root had when it was written. */
    public int rowCount() {
        return rowCount;
    }

    /** The number of columns. */
    public int columnCount() {
        return columnCount;
    }

    /** The size of the IPC stream in bytes. */
    public int byteSize() {
        return ipc.length;
    }

    /** The IPC stream, shared: the serializer writes it as it is. */
    byte[] ipc() {
        return ipc;
    }

    /** Whether {@code o} is a batch of the same IPC bytes. */
    @Override
    public boolean equals(Object o) {
        return o instanceof ArrowBatch b && rowCount == b.rowCount && Arrays.equals(ipc, b.ipc);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(ipc);
    }

    @Override
    public String toString() {
        return "ArrowBatch[" + rowCount + " rows, " + columnCount + " columns, " + ipc.length + " bytes]";
    }
}
