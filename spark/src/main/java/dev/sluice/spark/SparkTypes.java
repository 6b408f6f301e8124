package dev.sluice.spark;

import dev.sluice.InvalidArgumentException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.jspecify.annotations.Nullable;

/** The column types a stage takes, as Arrow and Spark name them, and the default reading of a result row. */
final class SparkTypes {

    private SparkTypes() {
    }

    /** Spark's type of an Arrow column the stages take: signed integers of 8 to 64 bits, single and double floats. */
    static @Nullable DataType sparkType(ArrowType type) {
        if (type instanceof ArrowType.FloatingPoint fp) {
            return fp.getPrecision() == FloatingPointPrecision.SINGLE ? DataTypes.FloatType
                    : fp.getPrecision() == FloatingPointPrecision.DOUBLE ? DataTypes.DoubleType : null;
        }
        if (type instanceof ArrowType.Int i && i.getIsSigned()) {
            return switch (i.getBitWidth()) {
                case 8 -> DataTypes.ByteType;
                case 16 -> DataTypes.ShortType;
                case 32 -> DataTypes.IntegerType;
                case 64 -> DataTypes.LongType;
                default -> null;
            };
        }
        return null;
    }

    /**
     * Checks that {@code field} is of a type the stages take.
     *
     * @throws InvalidArgumentException naming {@code argument} otherwise
     */
    static Field check(String argument, @Nullable Field field) {
        if (field == null) {
            throw new InvalidArgumentException(argument, "must not be null");
        }
        if (sparkType(field.getType()) == null) {
            throw new InvalidArgumentException(argument, field + " is of type " + field.getType() + "; a stage's columns are"
                    + " signed integers of 8, 16, 32 or 64 bits or single or double floats");
        }
        return field;
    }

    /** Spark's schema of {@code fields}. */
    static StructType schema(List<Field> fields) {
        List<StructField> out = new ArrayList<>(fields.size());
        for (Field f : fields) {
            out.add(DataTypes.createStructField(f.getName(), java.util.Objects.requireNonNull(sparkType(f.getType())),
                    f.isNullable()));
        }
        return DataTypes.createStructType(out);
    }

    /** Row {@code row} of {@code batch} as a {@link Row} of Java values (null where a value is null). */
    static Row row(ColumnarBatch batch, int row) {
        Object[] values = new Object[batch.numCols()];
        for (int c = 0; c < values.length; c++) {
            values[c] = value(batch.column(c), row);
        }
        return RowFactory.create(values);
    }

    private static @Nullable Object value(ColumnVector v, int row) {
        if (v.isNullAt(row)) {
            return null;
        }
        DataType t = v.dataType();
        if (t == DataTypes.FloatType) {
            return v.getFloat(row);
        } else if (t == DataTypes.DoubleType) {
            return v.getDouble(row);
        } else if (t == DataTypes.IntegerType) {
            return v.getInt(row);
        } else if (t == DataTypes.LongType) {
            return v.getLong(row);
        } else if (t == DataTypes.ShortType) {
            return v.getShort(row);
        } else if (t == DataTypes.ByteType) {
            return v.getByte(row);
        }
        throw new IllegalStateException("a result column of Spark type " + t + ", which the stage does not declare");
    }
}
