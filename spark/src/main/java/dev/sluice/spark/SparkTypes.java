package dev.sluice.spark;

import dev.sluice.DType;
import dev.sluice.InvalidArgumentException;
import java.io.Serial;
import java.sql.Date;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.jspecify.annotations.Nullable;

/**
 * The column types a stage takes, as Arrow and Spark name them; the form in which the pipeline and the device carry
 * each ({@link #deviceField}); and the default reading of a result row.
 *
 * <p>On the device: numbers as they are; a boolean as one byte a row (0 or 1; Arrow's one bit a row cannot be written
 * by an elementwise kernel without races); a date as its int32 days since 1970-01-01; a timestamp as its int64
 * microseconds since 1970-01-01T00:00Z (without a time zone: of the local date-time read as UTC); a string or binary
 * as Arrow's int32 offsets ({@code n + 1}) and bytes.
 */
final class SparkTypes {

    /** The types a stage takes, for messages. */
    static final String SUPPORTED = "Int of 8, 16, 32 or 64 bits, signed (Spark's ByteType to LongType), FloatingPoint"
            + " SINGLE or DOUBLE (FloatType, DoubleType), Bool (BooleanType), Date(DAY) (DateType),"
            + " Timestamp(MICROSECOND, zone) (TimestampType; without a zone TimestampNTZType), Utf8 (StringType),"
            + " Binary (BinaryType)";

    /** Spark's property that makes dates and timestamps {@code java.time} objects in rows. */
    static final String JAVA8_API = "spark.sql.datetime.java8API.enabled";

    private static final ArrowType BYTE_A_ROW = new ArrowType.Int(8, false);
    private static final ArrowType I32 = new ArrowType.Int(32, true);
    private static final ArrowType I64 = new ArrowType.Int(64, true);

    private SparkTypes() {
    }

    /** Spark's type of an Arrow column the stages take; null for any other. */
    static @Nullable DataType sparkType(ArrowType type) {
        return switch (type) {
            case ArrowType.FloatingPoint fp -> fp.getPrecision() == FloatingPointPrecision.SINGLE ? DataTypes.FloatType
                    : fp.getPrecision() == FloatingPointPrecision.DOUBLE ? DataTypes.DoubleType : null;
            case ArrowType.Int i when i.getIsSigned() -> switch (i.getBitWidth()) {
                case 8 -> DataTypes.ByteType;
                case 16 -> DataTypes.ShortType;
                case 32 -> DataTypes.IntegerType;
                case 64 -> DataTypes.LongType;
                default -> null;
            };
            case ArrowType.Bool b -> DataTypes.BooleanType;
            case ArrowType.Date d when d.getUnit() == DateUnit.DAY -> DataTypes.DateType;
            case ArrowType.Timestamp t when t.getUnit() == TimeUnit.MICROSECOND ->
                    t.getTimezone() == null ? DataTypes.TimestampNTZType : DataTypes.TimestampType;
            case ArrowType.Utf8 u -> DataTypes.StringType;
            case ArrowType.Binary b -> DataTypes.BinaryType;
            default -> null;
        };
    }

    /** Whether a column of {@code type} reaches the device as offsets and bytes (strings, binaries). */
    static boolean isVariableWidth(ArrowType type) {
        return type instanceof ArrowType.Utf8 || type instanceof ArrowType.Binary;
    }

    /**
     * {@code field} in the form the pipeline uploads and downloads: a boolean as Int(8, unsigned) (one byte a row), a
     * date as Int(32), a timestamp as Int(64); the other types as they are. Same name and nullability.
     */
    static Field deviceField(Field field) {
        ArrowType t = field.getType();
        ArrowType device = switch (t) {
            case ArrowType.Bool b -> BYTE_A_ROW;
            case ArrowType.Date d -> I32;
            case ArrowType.Timestamp ts -> I64;
            default -> t;
        };
        return device == t ? field : new Field(field.getName(), new FieldType(field.isNullable(), device, null), null);
    }

    /** Whether the pipeline carries {@code field} in another form than the stage declares ({@link #deviceField}). */
    static boolean changesForm(Field field) {
        return deviceField(field) != field;
    }

    /**
     * The element type of the kernel's pointer to a column's values: BOOL for a boolean, I32 for a date, I64 for a
     * timestamp, U8 for a string's or binary's bytes (its offsets are I32), the numbers' own.
     */
    static DType elementType(ArrowType type) {
        return switch (type) {
            case ArrowType.Bool b -> DType.BOOL;
            case ArrowType.Date d -> DType.I32;
            case ArrowType.Timestamp t -> DType.I64;
            case ArrowType.Utf8 u -> DType.U8;
            case ArrowType.Binary b -> DType.U8;
            default -> dev.sluice.arrow.ArrowColumns.fixedWidthType(type).orElseThrow(
                    () -> new IllegalStateException("a column of type " + type + ", which SparkTypes.check refuses"));
        };
    }

    /** Bytes a value takes on the device (a byte a row for a boolean); 0 for a string or binary (offsets and bytes). */
    static int deviceWidth(ArrowType type) {
        return isVariableWidth(type) ? 0 : elementType(type).byteSize();
    }

    /**
     * Checks that {@code field} is of a type the stages take, as an input ({@code output} false) or as a column the
     * device work writes, which must be fixed-width.
     *
     * @throws InvalidArgumentException naming {@code argument}, the column, its type and the supported types otherwise
     */
    static Field check(String argument, @Nullable Field field, boolean output) {
        if (field == null) {
            throw new InvalidArgumentException(argument, "must not be null");
        }
        ArrowType t = field.getType();
        String spark = sparkName(t);
        String named = "column " + field.getName() + " is of type " + t + (spark == null ? "" : " (Spark's " + spark + ")");
        if (t.isComplex() || !field.getChildren().isEmpty()) {
            throw new InvalidArgumentException(argument, named + ": nested types are not supported; a stage's columns"
                    + " are " + SUPPORTED);
        }
        if (sparkType(t) == null) {
            throw new InvalidArgumentException(argument, named + ", which the stages do not support; a stage's columns"
                    + " are " + SUPPORTED);
        }
        if (output && isVariableWidth(t)) {
            throw new InvalidArgumentException(argument, named + ": a column the device writes is fixed-width (a"
                    + " number, a boolean, a date or a timestamp); strings and binaries are inputs and carried columns");
        }
        return field;
    }

    /** Spark's name of the types it has and the stages do not take, for messages; null for others. */
    private static @Nullable String sparkName(ArrowType t) {
        return switch (t) {
            case ArrowType.Decimal d -> "DecimalType(" + d.getPrecision() + "," + d.getScale() + ")";
            case ArrowType.List l -> "ArrayType";
            case ArrowType.LargeList l -> "ArrayType";
            case ArrowType.FixedSizeList l -> "ArrayType";
            case ArrowType.Struct s -> "StructType";
            case ArrowType.Map m -> "MapType";
            case ArrowType.LargeUtf8 u -> "StringType";
            case ArrowType.LargeBinary b -> "BinaryType";
            case ArrowType.Interval i -> "an interval type";
            case ArrowType.Duration d -> "DayTimeIntervalType";
            case ArrowType.Null n -> "NullType";
            default -> null;
        };
    }

    /**
     * Whether a batch's column of type {@code got} is one of the declared type {@code want}: equal, or both timestamps
     * of microseconds with a time zone (any zone: the values are instants, and the result has the declared zone).
     */
    static boolean sameType(ArrowType want, ArrowType got) {
        return want.equals(got) || want instanceof ArrowType.Timestamp w && got instanceof ArrowType.Timestamp g
                && w.getUnit() == g.getUnit() && w.getTimezone() != null && g.getTimezone() != null;
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

    /** Days since 1970-01-01 of a row's date (as Spark counts them: the date's fields in the proleptic calendar). */
    static @Nullable Integer days(Object value) {
        LocalDate d = value instanceof LocalDate l ? l : value instanceof Date s ? s.toLocalDate() : null;
        return d == null ? null : Math.toIntExact(d.toEpochDay());
    }

    /** Microseconds since 1970-01-01T00:00Z of a row's timestamp ({@code Timestamp} or {@code Instant}). */
    static @Nullable Long micros(Object value) {
        Instant i = value instanceof Instant x ? x : value instanceof Timestamp t ? t.toInstant() : null;
        return i == null ? null : Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000L), i.getNano() / 1000);
    }

    /** Microseconds since 1970-01-01T00:00 of a row's {@code LocalDateTime} (TimestampNTZType). */
    static @Nullable Long localMicros(Object value) {
        if (!(value instanceof LocalDateTime t)) {
            return null;
        }
        return Math.addExact(Math.multiplyExact(t.toEpochSecond(ZoneOffset.UTC), 1_000_000L), t.getNano() / 1000);
    }

    /**
     * The default {@link RowReader} of {@code Row}s: each value as Spark's {@code Encoders.row} takes it. Dates and
     * timestamps are {@code java.sql.Date} and {@code java.sql.Timestamp}, or {@code LocalDate} and {@code Instant} where
     * the job sets {@value #JAVA8_API} (read once per task, from the task's properties, which carry the SparkSession's SQL
     * settings); a timestamp without a time zone is a {@code LocalDateTime}.
     */
    static final class Rows implements RowReader<Row> {
        @Serial
        private static final long serialVersionUID = 1L;

        /** Whether dates and timestamps are java.time objects; read in the task on first use. */
        private transient @Nullable Boolean java8;

        @Override
        public Row read(ColumnarBatch batch, int row) {
            Boolean j = java8;
            if (j == null) {
                TaskContext task = TaskContext.get();
                j = task != null && "true".equalsIgnoreCase(task.getLocalProperty(JAVA8_API));
                java8 = j;
            }
            Object[] values = new Object[batch.numCols()];
            for (int c = 0; c < values.length; c++) {
                values[c] = value(batch.column(c), row, j);
            }
            return RowFactory.create(values);
        }
    }

    private static @Nullable Object value(ColumnVector v, int row, boolean java8) {
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
        } else if (t == DataTypes.BooleanType) {
            return v.getBoolean(row);
        } else if (t == DataTypes.DateType) {
            LocalDate d = LocalDate.ofEpochDay(v.getInt(row));
            return java8 ? d : Date.valueOf(d);
        } else if (t == DataTypes.TimestampType) {
            long us = v.getLong(row);
            Instant i = Instant.ofEpochSecond(Math.floorDiv(us, 1_000_000L), Math.floorMod(us, 1_000_000L) * 1000L);
            return java8 ? i : Timestamp.from(i);
        } else if (t == DataTypes.TimestampNTZType) {
            long us = v.getLong(row);
            return LocalDateTime.ofEpochSecond(Math.floorDiv(us, 1_000_000L), (int) Math.floorMod(us, 1_000_000L) * 1000,
                    ZoneOffset.UTC);
        } else if (t instanceof org.apache.spark.sql.types.StringType) { // whatever its collation
            return v.getUTF8String(row).toString();
        } else if (t == DataTypes.BinaryType) {
            return v.getBinary(row);
        }
        throw new IllegalStateException("a result column of Spark type " + t + ", which the stage does not declare");
    }
}
