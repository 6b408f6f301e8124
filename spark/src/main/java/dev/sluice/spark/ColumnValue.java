package dev.sluice.spark;

import java.io.Serializable;
import org.jspecify.annotations.Nullable;

/**
 * The value of one input column for a row of a typed {@code Dataset}: for a number column a {@link Number} of its type
 * (a {@code Float} for a 32-bit float column, a {@code Long} for a 64-bit integer one; any {@link Number} is narrowed as
 * Java's casts do); a {@code Boolean} for a {@code Bool} column; a {@code java.time.LocalDate} or {@code java.sql.Date}
 * for a date; a {@code java.time.Instant} or {@code java.sql.Timestamp} for a timestamp with a time zone, a
 * {@code java.time.LocalDateTime} for one without; a {@code String} for a {@code Utf8} column (uploaded as UTF-8); a
 * {@code byte[]} for a {@code Binary} one. A value of another class fails the task, naming the row and the column. Spark ships it with the job, so it is {@link Serializable} (a lambda assigned to this type is).
 * Null is a null of a column declared nullable ({@code Field.nullable}), and fails the task in any other column.
 *
 * @param <T> the row type
 */
@FunctionalInterface
public interface ColumnValue<T> extends Serializable {

    /** The column's value in {@code row}. */
    @Nullable Object value(T row);
}
