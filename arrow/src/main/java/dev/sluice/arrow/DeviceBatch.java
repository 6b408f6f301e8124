package dev.sluice.arrow;

import dev.sluice.InvalidArgumentException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An Arrow record batch in device memory: one {@link DeviceColumn} per column, by name, in the schema's order, all of
 * {@link #rowCount()} values. Made by {@link ArrowColumns#upload(dev.sluice.DeviceStream, org.apache.arrow.vector.VectorSchemaRoot)}
 * or assembled with {@link #of}; read back with
 * {@link ArrowColumns#download(dev.sluice.DeviceStream, DeviceBatch, org.apache.arrow.vector.VectorSchemaRoot)}.
 *
 * <p><b>Resources:</b> {@link #close()} closes every column.
 */
public final class DeviceBatch implements AutoCloseable {

    private final int rowCount;
    private final Map<String, DeviceColumn> columns;

    private DeviceBatch(int rowCount, Map<String, DeviceColumn> columns) {
        this.rowCount = rowCount;
        this.columns = Collections.unmodifiableMap(columns);
    }

    /**
     * A batch of {@code columns}, in their map's iteration order, which it takes over (its close closes them).
     *
     * @throws InvalidArgumentException naming {@code columns} if it is null or empty, holds a null, or its columns differ
     *                                  in length
     */
    public static DeviceBatch of(Map<String, DeviceColumn> columns) {
        if (columns == null || columns.isEmpty()) {
            throw new InvalidArgumentException("columns", columns == null ? "must not be null" : "is empty");
        }
        int rows = -1;
        String first = null;
        for (Map.Entry<String, DeviceColumn> e : columns.entrySet()) {
            if (e.getKey() == null || e.getValue() == null) {
                throw new InvalidArgumentException("columns", "holds a null name or column");
            }
            if (rows < 0) {
                rows = e.getValue().valueCount();
                first = e.getKey();
            } else if (e.getValue().valueCount() != rows) {
                throw new InvalidArgumentException("columns", "column " + e.getKey() + " has " + e.getValue().valueCount()
                        + " values but column " + first + " has " + rows);
            }
        }
        return new DeviceBatch(rows, new LinkedHashMap<>(columns));
    }

    /** The number of rows: every column's value count. */
    public int rowCount() {
        return rowCount;
    }

    /** The columns by name, in order; unmodifiable. */
    public Map<String, DeviceColumn> columns() {
        return columns;
    }

    /**
     * The column named {@code name}.
     *
     * @throws InvalidArgumentException naming {@code name} if it is null or the batch has no such column
     */
    public DeviceColumn column(String name) {
        if (name == null) {
            throw new InvalidArgumentException("name", "must not be null");
        }
        DeviceColumn c = columns.get(name);
        if (c == null) {
            throw new InvalidArgumentException("name", "no column " + name + " in a batch of " + columns.keySet());
        }
        return c;
    }

    /** Closes every column. Idempotent. */
    @Override
    public void close() {
        columns.values().forEach(DeviceColumn::close);
    }

    @Override
    public String toString() {
        return "DeviceBatch[" + rowCount + " rows, " + columns + "]";
    }
}
