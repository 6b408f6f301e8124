package dev.sluice;

import java.util.Locale;

/**
 * The figures a monitoring integration reports of one {@link DeviceContext}, defined once: each constant's canonical
 * name, kind, unit, meaning and the public API it is read from. {@code sluice-micrometer}'s {@code DeviceMetrics},
 * sluice-flink's gauges and sluice-spark's plugin each report every constant and no other figure of the context, so a
 * dashboard built on one reads the same figures from the others; their tests compare what they register with this table.
 *
 * <p><b>Names.</b> {@link #metricName()} ({@code sluice.operations.failed}) is the name in dotted, flat registries
 * (Micrometer, Dropwizard). {@link #groupName()} ({@code operationsFailed}) is the same name in camelCase without the
 * {@code sluice} prefix, for systems that nest names in groups and name metrics in camelCase (Flink: the metric
 * {@code operationsFailed} in the group {@code sluice}).
 *
 * <p><b>Sources.</b> Every figure but the device's memory comes from a {@link DeviceListener} registered on the context
 * ({@link DeviceContext#addListener}), counted from its registration on; the device's memory comes from
 * {@link DeviceContext#memoryInfo()} when the figure is read, and reads as not a number once the context is closed or
 * faulted. {@link #source()} names the callback of each.
 */
public enum DeviceFigure {

    /** Counter: operations handed to the device. */
    OPERATIONS_ENQUEUED("sluice.operations.enqueued", Kind.COUNTER, "operations", "Operations handed to the device",
            "DeviceListener.operationEnqueued"),
    /** Counter: operations whose futures completed, normally or not. */
    OPERATIONS_COMPLETED("sluice.operations.completed", Kind.COUNTER, "operations",
            "Operations whose futures completed, normally or not", "DeviceListener.operationCompleted"),
    /** Counter: of the operations completed, those that failed (a device fault, the context closed first). */
    OPERATIONS_FAILED("sluice.operations.failed", Kind.COUNTER, "operations",
            "Operations whose futures completed exceptionally", "DeviceListener.operationCompleted with a failure"),
    /** Gauge: operations enqueued whose futures have not completed (enqueued minus completed, never below 0). */
    OPERATIONS_IN_FLIGHT("sluice.operations.in.flight", Kind.GAUGE, "operations",
            "Operations enqueued whose futures have not completed",
            "DeviceListener.operationEnqueued minus DeviceListener.operationCompleted"),
    /**
     * Timer: from an operation's enqueue to its future's completion, waiting behind earlier work included. Integrations
     * that can split it do so by the operation's category ({@link OperationKind#category()}) and outcome.
     */
    OPERATION_LATENCY("sluice.operation.latency", Kind.TIMER, "nanoseconds",
            "From an operation's enqueue to its future's completion, waiting behind earlier work included",
            "DeviceListener.operationCompleted, its latencyNanos"),
    /**
     * Counter: bytes copied by the copies that were enqueued, by direction ({@code upload}, {@code download},
     * {@code d2d}, {@code peer}: a tag, or a group {@code direction}).
     */
    COPY_BYTES("sluice.copy.bytes", Kind.COUNTER, "bytes", "Bytes copied, by direction: upload, download, d2d, peer",
            "DeviceListener.operationEnqueued of a copy, its bytes"),
    /** Gauge: device memory the context allocated and has not freed. */
    MEMORY_ALLOCATED("sluice.memory.allocated", Kind.GAUGE, "bytes",
            "Device memory this context has allocated and not freed",
            "DeviceListener.memoryAllocated minus DeviceListener.memoryFreed"),
    /** Counter: the context's device allocations. */
    MEMORY_ALLOCATIONS("sluice.memory.allocations", Kind.COUNTER, "allocations", "Device allocations",
            "DeviceListener.memoryAllocated"),
    /** Counter: the context's device frees. */
    MEMORY_FREES("sluice.memory.frees", Kind.COUNTER, "frees", "Device frees", "DeviceListener.memoryFreed"),
    /** Gauge: the device's memory in use by every process (total minus free); not a number once closed or faulted. */
    MEMORY_DEVICE_USED("sluice.memory.device.used", Kind.GAUGE, "bytes",
            "Used memory of the device (total minus free), by every process",
            "DeviceContext.memoryInfo(), total minus free"),
    /** Gauge: the device's free memory as the driver reports it; not a number once closed or faulted. */
    MEMORY_DEVICE_FREE("sluice.memory.device.free", Kind.GAUGE, "bytes",
            "Free memory of the device, as the driver reports it", "DeviceContext.memoryInfo(), free"),
    /** Timer: {@link DeviceContext#compile} compiling or loading a kernel, by outcome where the integration can split. */
    KERNEL_COMPILATIONS("sluice.kernel.compilations", Kind.TIMER, "nanoseconds",
            "DeviceContext.compile: compiling or loading a kernel", "DeviceListener.kernelCompiled"),
    /** Counter: the context's device faults, 0 or 1 (a faulted context stays unusable). */
    FAULTS("sluice.faults", Kind.COUNTER, "faults", "Device faults (the context stays unusable)",
            "DeviceListener.faulted");

    /** What a figure's values are, which decides the instrument an integration reports it with. */
    public enum Kind {
        /** A count that only grows, from the listener's registration on. */
        COUNTER,
        /** A value now, which may go up and down. */
        GAUGE,
        /** Durations, each one observation: a timer, or a histogram of nanoseconds where there is no timer. */
        TIMER
    }

    private final String metricName;
    private final Kind kind;
    private final String unit;
    private final String description;
    private final String source;

    DeviceFigure(String metricName, Kind kind, String unit, String description, String source) {
        this.metricName = metricName;
        this.kind = kind;
        this.unit = unit;
        this.description = description;
        this.source = source;
    }

    /**
     * The canonical, dotted name: {@code sluice.operations.failed}.
     *
     * @return the name in flat registries (Micrometer, Dropwizard)
     */
    public String metricName() {
        return metricName;
    }

    /**
     * The name in camelCase, without the {@code sluice.} prefix: {@code operationsFailed}, for a metric inside a group
     * {@code sluice} (Flink's convention).
     *
     * @return the canonical name's words after {@code sluice}, the first lower case, the others capitalized
     */
    public String groupName() {
        String[] words = metricName.substring("sluice.".length()).split("\\.");
        StringBuilder b = new StringBuilder(words[0]);
        for (int i = 1; i < words.length; i++) {
            b.append(words[i].substring(0, 1).toUpperCase(Locale.ROOT)).append(words[i].substring(1));
        }
        return b.toString();
    }

    /**
     * The instrument: counter, gauge or timer.
     *
     * @return the figure's kind
     */
    public Kind kind() {
        return kind;
    }

    /**
     * The unit of its values, plural: {@code bytes}, {@code operations}, {@code nanoseconds} (of a timer's observations).
     *
     * @return the unit
     */
    public String unit() {
        return unit;
    }

    /**
     * One line for a registry's description or help text.
     *
     * @return what the figure measures
     */
    public String description() {
        return description;
    }

    /**
     * Where the figure comes from in the public API: a {@link DeviceListener} callback or a {@link DeviceContext}
     * method, as {@code DeviceListener.memoryAllocated}.
     *
     * @return the callback or method, in words
     */
    public String source() {
        return source;
    }
}
