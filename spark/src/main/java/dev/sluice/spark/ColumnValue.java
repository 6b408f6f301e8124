package dev.sluice.spark;

import java.io.Serializable;
import org.jspecify.annotations.Nullable;

/**
 * The value of one input column for a row of a typed {@code Dataset}: a {@link Number} of the column's type (a
 * {@code Float} for a 32-bit float column, a {@code Long} for a 64-bit integer one; any {@link Number} is narrowed as
 * Java's casts do). Spark ships it with the job, so it is {@link Serializable} (a lambda assigned to this type is).
 * Null is a null of a column declared nullable ({@code Field.nullable}), and fails the task in any other column.
 *
 * @param <T> the row type
 */
@FunctionalInterface
public interface ColumnValue<T> extends Serializable {

    /** The column's value in {@code row}. */
    @Nullable Object value(T row);
}
