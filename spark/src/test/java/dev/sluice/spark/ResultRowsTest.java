package dev.sluice.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.sql.Date;
import java.time.LocalDate;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.junit.jupiter.api.Test;

/** The default reading of result rows: a batch read through its binding gives the rows {@link SparkTypes.Rows} gives. */
class ResultRowsTest {

    private static final int ROWS = 70;

    @Test
    void everyColumnReadsAsTheDefaultRowsReadItWithNullsWhereTheBitmapHasThem() {
        List<Field> fields = List.of(
                Field.notNullable("f", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
                Field.nullable("d", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)),
                Field.nullable("i", new ArrowType.Int(32, true)),
                Field.notNullable("l", new ArrowType.Int(64, true)),
                Field.nullable("s", new ArrowType.Int(16, true)),
                Field.notNullable("b", new ArrowType.Int(8, true)),
                Field.nullable("flag", ArrowType.Bool.INSTANCE), // read as SparkTypes.Rows reads them
                Field.notNullable("day", new ArrowType.Date(DateUnit.DAY)));
        try (BufferAllocator allocator = new RootAllocator();
                VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(fields), allocator)) {
            root.allocateNew();
            for (int r = 0; r < ROWS; r++) {
                ((Float4Vector) root.getVector("f")).set(r, r * 0.5f);
                if (r % 7 == 3) {
                    ((Float8Vector) root.getVector("d")).setNull(r);
                    ((SmallIntVector) root.getVector("s")).setNull(r);
                } else {
                    ((Float8Vector) root.getVector("d")).set(r, -r * 0.25);
                    ((SmallIntVector) root.getVector("s")).set(r, (short) (r - 20));
                }
                ((IntVector) root.getVector("i")).set(r, r * 1000); // nullable, with no null in the batch
                ((BigIntVector) root.getVector("l")).set(r, (long) r << 40);
                ((TinyIntVector) root.getVector("b")).set(r, (byte) -r);
                if (r % 5 == 1) {
                    ((BitVector) root.getVector("flag")).setNull(r);
                } else {
                    ((BitVector) root.getVector("flag")).set(r, r % 2);
                }
                ((DateDayVector) root.getVector("day")).set(r, 20_000 + r);
            }
            root.setRowCount(ROWS);
            ColumnarBatch batch = ColumnarBatches.of(root);
            ResultRows reader = new ResultRows();
            RowReader<Row> bound = reader.bind(batch);
            for (int r = 0; r < ROWS; r++) {
                Row expected = RowFactory.create(r * 0.5f, r % 7 == 3 ? null : -r * 0.25, r * 1000, (long) r << 40,
                        r % 7 == 3 ? null : (short) (r - 20), (byte) -r, r % 5 == 1 ? null : r % 2 == 1,
                        Date.valueOf(LocalDate.ofEpochDay(20_000 + r)));
                Row read = bound.read(batch, r);
                assertEquals(expected, read, "row " + r);
                assertEquals(expected, reader.read(batch, r), "row " + r + " read alone");
                for (int c = 0; c < fields.size(); c++) { // Row.equals takes 1.0f for 1.0d: the classes, too
                    Object e = expected.get(c);
                    assertEquals(e == null ? null : e.getClass(), read.isNullAt(c) ? null : read.get(c).getClass(),
                            "row " + r + ", column " + fields.get(c).getName());
                }
            }
            assertNull(bound.read(batch, 3).get(1));
        }
    }
}
