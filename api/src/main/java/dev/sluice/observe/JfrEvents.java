package dev.sluice.observe;

import dev.sluice.SluiceException;
import java.util.function.Consumer;
import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;
import jdk.jfr.FlightRecorderListener;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Recording;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;
import org.jspecify.annotations.Nullable;

/**
 * Sluice's Flight Recorder events, which a running JVM switches on through JFR settings alone
 * ({@code jcmd <pid> JFR.start settings=default settings=/path/to/sluice.jfc}, the profile in this jar at
 * {@code /dev/sluice/sluice.jfc}). Loaded only where the JDK has {@code jdk.jfr} ({@code Observers.JFR}).
 *
 * <p>The rare events (context open and close, compilations, allocations and frees, faults) are committed where they
 * happen, at the cost of an event object the JIT removes when no recording enables them. Operation events are per
 * enqueue, so they are gated: this class listens to the recorder and, when a recording starts or stops, tells its
 * listener (which tells every open context) whether {@code dev.sluice.Operation} is enabled; only then does the enqueue
 * hook create events.
 *
 * <p>Events take plain values. A context is passed as itself, an {@code Object} whose {@code toString()} names it in
 * the event, so that the name is built only for an event that is committed.
 */
public final class JfrEvents {

    /**
     * A begun event, opaque to its caller, who hands it back to end it ({@link #endOperation}, {@link #endCompilation}):
     * the caller names no Flight Recorder type, so its classes load where the JDK has no {@code jdk.jfr}.
     */
    public interface Started {
    }

    private static volatile boolean operations;
    private static volatile Consumer<Boolean> onChange = on -> { };

    private JfrEvents() {
    }

    /**
     * Starts following the recorder: each recording that starts or stops re-reads whether {@code dev.sluice.Operation} is
     * enabled, and tells {@code onChange} when that changes. Called once, by {@code Observers}' class initialisation.
     * Does not start the recorder.
     */
    public static void listen(Consumer<Boolean> onChange) {
        JfrEvents.onChange = onChange;
        FlightRecorder.addListener(new FlightRecorderListener() {
            @Override
            public void recordingStateChanged(Recording recording) {
                refresh();
            }
        });
        if (FlightRecorder.isInitialized()) {
            refresh();
        }
    }

    /** Whether a recording enables {@code dev.sluice.Operation} now. */
    public static boolean operationsEnabled() {
        return operations;
    }

    private static synchronized void refresh() {
        boolean on = EventType.getEventType(Operation.class).isEnabled();
        if (on != operations) {
            operations = on;
            onChange.accept(on);
        }
    }

    // ---------------------------------------------------------------- operations

    /** Begins the event of an operation being enqueued: the token for {@link #endOperation}. */
    public static Started beginOperation() {
        Operation e = new Operation();
        e.begin();
        return e;
    }

    /**
     * Ends the event of {@link #beginOperation}'s {@code token}, as the operation's future completes, and commits it if
     * the recording wants it.
     *
     * @param context the context, by its {@code toString()}
     * @param stream  the stream's name in traces
     * @param kind    a {@code TraceSpan} kind, {@code "kernel <name>"} for a launch
     */
    public static void endOperation(Started token, Object context, String stream, String kind, @Nullable String label,
            long bytes, @Nullable Throwable failure) {
        Operation e = (Operation) token;
        e.end();
        if (e.shouldCommit()) {
            e.context = context.toString();
            e.stream = stream;
            e.kind = kind;
            e.label = label;
            e.bytes = bytes;
            e.failure = failure == null ? null : failure.toString();
            e.commit();
        }
    }

    // ---------------------------------------------------------------- rare events

    /**
     * A context opened.
     *
     * @param context    the context, by its {@code toString()}
     * @param backend    the backend's name
     * @param device     the device's number
     * @param deviceName the device's name
     */
    public static void contextOpened(Object context, String backend, int device, String deviceName) {
        ContextOpen e = new ContextOpen();
        if (e.shouldCommit()) {
            e.context = context.toString();
            e.backend = backend;
            e.device = device;
            e.deviceName = deviceName;
            e.commit();
        }
    }

    /** A context closed; {@code context} by its {@code toString()}. */
    public static void contextClosed(Object context, boolean faulted) {
        ContextClose e = new ContextClose();
        if (e.shouldCommit()) {
            e.context = context.toString();
            e.faulted = faulted;
            e.commit();
        }
    }

    /** Begins the event of a compilation: the token for {@link #endCompilation}. */
    public static Started beginCompilation() {
        KernelCompilation e = new KernelCompilation();
        e.begin();
        return e;
    }

    /** Ends and commits {@link #beginCompilation}'s event of {@code kernel}; {@code context} by its {@code toString()}. */
    public static void endCompilation(Started token, Object context, String kernel, @Nullable Throwable failure) {
        KernelCompilation e = (KernelCompilation) token;
        e.end();
        if (e.shouldCommit()) {
            e.context = context.toString();
            e.kernel = kernel;
            e.failure = failure == null ? null : failure.toString();
            e.commit();
        }
    }

    /** Device memory allocated; {@code context} by its {@code toString()}. */
    public static void allocated(Object context, long bytes) {
        MemoryAllocation e = new MemoryAllocation();
        if (e.shouldCommit()) {
            e.context = context.toString();
            e.bytes = bytes;
            e.commit();
        }
    }

    /** Device memory handed back; {@code context} by its {@code toString()}. */
    public static void freed(Object context, long bytes) {
        MemoryFree e = new MemoryFree();
        if (e.shouldCommit()) {
            e.context = context.toString();
            e.bytes = bytes;
            e.commit();
        }
    }

    /** A context faulted; {@code context} by its {@code toString()}. */
    public static void faulted(Object context, Throwable fault) {
        Fault e = new Fault();
        if (e.shouldCommit()) {
            e.context = context.toString();
            e.fault = fault.toString();
            if (fault instanceof SluiceException se) {
                e.errorName = se.errorName().orElse(null);
            }
            e.commit();
        }
    }

    // ---------------------------------------------------------------- the event types

    /** Off unless a recording enables it: a busy service enqueues millions of operations. */
    @Name("dev.sluice.Operation")
    @Label("Sluice Operation")
    @Category({"Sluice", "Device"})
    @Description("An enqueued operation, from its enqueue to its future's completion, on the host's clock")
    @StackTrace(false)
    @Enabled(false)
    @Threshold("1 ms")
    static final class Operation extends Event implements Started {
        @Label("Context") @Nullable String context;
        @Label("Stream") @Nullable String stream;
        @Label("Kind") @Description("upload, download, d2d, peer, memset, kernel <name>, record, wait, host, marker, alloc, free, graph")
        @Nullable String kind;
        @Label("Label") @Nullable String label;
        @Label("Bytes") @DataAmount long bytes;
        @Label("Failure") @Nullable String failure;
    }

    @Name("dev.sluice.KernelCompilation")
    @Label("Sluice Kernel Compilation")
    @Category({"Sluice", "Kernels"})
    @Description("DeviceContext.compile: compiling (NVRTC, hiprtc) or loading a kernel")
    static final class KernelCompilation extends Event implements Started {
        @Label("Context") @Nullable String context;
        @Label("Kernel") @Nullable String kernel;
        @Label("Failure") @Nullable String failure;
    }

    @Name("dev.sluice.Allocation")
    @Label("Sluice Device Allocation")
    @Category({"Sluice", "Memory"})
    @StackTrace(true)
    static final class MemoryAllocation extends Event {
        @Label("Context") @Nullable String context;
        @Label("Bytes") @DataAmount long bytes;
    }

    @Name("dev.sluice.Free")
    @Label("Sluice Device Free")
    @Category({"Sluice", "Memory"})
    @Description("Device memory handed back, in stream order after its last use")
    @StackTrace(false)
    static final class MemoryFree extends Event {
        @Label("Context") @Nullable String context;
        @Label("Bytes") @DataAmount long bytes;
    }

    @Name("dev.sluice.Fault")
    @Label("Sluice Device Fault")
    @Category({"Sluice", "Device"})
    @Description("A context faulted (a sticky device error) and stays unusable")
    @StackTrace(false)
    static final class Fault extends Event {
        @Label("Context") @Nullable String context;
        @Label("Fault") @Nullable String fault;
        @Label("Error Name") @Nullable String errorName;
    }

    @Name("dev.sluice.ContextOpen")
    @Label("Sluice Context Open")
    @Category({"Sluice", "Device"})
    static final class ContextOpen extends Event {
        @Label("Context") @Nullable String context;
        @Label("Backend") @Nullable String backend;
        @Label("Device") int device;
        @Label("Device Name") @Nullable String deviceName;
    }

    @Name("dev.sluice.ContextClose")
    @Label("Sluice Context Close")
    @Category({"Sluice", "Device"})
    @StackTrace(false)
    static final class ContextClose extends Event {
        @Label("Context") @Nullable String context;
        @Label("Faulted") boolean faulted;
    }
}
