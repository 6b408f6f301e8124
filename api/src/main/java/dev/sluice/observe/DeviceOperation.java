package dev.sluice.observe;

import dev.sluice.TraceSpan;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;
import org.jspecify.annotations.Nullable;

/**
 * The JDK Flight Recorder event of one traced device operation, committed on the completion thread when
 * the operation's span resolves, and only while a recording enables it. The event's own timestamp is that
 * moment on the host; the device times are fields, in nanoseconds since the context's trace base.
 */
@Name("dev.sluice.DeviceOperation")
@Label("Device Operation")
@Category({"Sluice", "Device"})
@Description("An operation's run on the device, from timing events recorded before and after it (tracing on)")
@StackTrace(false)
final class DeviceOperation extends Event {

    @Label("Context")
    @Nullable String context;

    @Label("Stream")
    @Nullable String stream;

    @Label("Kind")
    @Description("upload, download, d2d, peer, peer-staged, memset, kernel <name>, record, wait, host, marker, alloc, free, graph")
    @Nullable String kind;

    @Label("Label")
    @Nullable String label;

    @Label("Device Start")
    @Description("When the stream reached the operation, since the context's trace base")
    @Timespan(Timespan.NANOSECONDS)
    long deviceStart;

    @Label("Device End")
    @Timespan(Timespan.NANOSECONDS)
    long deviceEnd;

    @Label("Device Duration")
    @Timespan(Timespan.NANOSECONDS)
    long deviceDuration;

    /** Commits an event for {@code span} if a recording wants it; costs an allocation the JIT removes otherwise. */
    static void emit(String context, TraceSpan span) {
        DeviceOperation e = new DeviceOperation();
        if (e.shouldCommit()) {
            e.context = context;
            e.stream = span.stream();
            e.kind = span.kind();
            e.label = span.label();
            e.deviceStart = span.startNanos();
            e.deviceEnd = span.endNanos();
            e.deviceDuration = span.durationNanos();
            e.commit();
        }
    }
}
