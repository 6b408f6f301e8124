package dev.sluice;

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
 * ({@code jcmd <pid> JFR.start settings=default settings=/path/to/sluice.jfc}, the profile in this jar at {@code /dev/sluice/sluice.jfc}). Loaded
 * only where the JDK has {@code jdk.jfr} ({@link Observers#JFR}).
 *
 * <p>The rare events (context open and close, compilations, allocations and frees, faults) are committed where they
 * happen, at the cost of an event object the JIT removes when no recording enables them. Operation events are per
 * enqueue, so they are gated: this class listens to the recorder and, when a recording starts or stops, tells every open
 * context whether {@code dev.sluice.Operation} is enabled; only then does the enqueue hook create events.
 */
final class JfrEvents {

    private static volatile boolean operations;

    private JfrEvents() {
    }

    /**
     * Starts following the recorder: each recording that starts or stops re-reads whether {@code dev.sluice.Operation} is
     * enabled. Called once, by {@link Observers}' class initialisation. Does not start the recorder.
     */
    static void listen() {
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
    static boolean operationsEnabled() {
        return operations;
    }

    private static synchronized void refresh() {
        boolean on = EventType.getEventType(Operation.class).isEnabled();
        if (on != operations) {
            operations = on;
            for (Observers o : Observers.OPEN) {
                o.jfrOperations(on);
            }
        }
    }

    // ---------------------------------------------------------------- operations

    static Object beginOperation() {
        Operation e = new Operation();
        e.begin();
        return e;
    }

    static void endOperation(Object token, DeviceContext context, DeviceStream stream, String kind, @Nullable String label,
            long bytes, @Nullable Throwable failure) {
        Operation e = (Operation) token;
        e.end();
        if (e.shouldCommit()) {
            e.context = context.toString();
            e.stream = stream.traceName();
            e.kind = kind;
            e.label = label;
            e.bytes = bytes;
            e.failure = failure == null ? null : failure.toString();
            e.commit();
        }
    }

    // ---------------------------------------------------------------- rare events

    static void contextOpened(DeviceContext context) {
        ContextOpen e = new ContextOpen();
        if (e.shouldCommit()) {
            e.context = context.toString();
            e.backend = context.backendName();
            e.device = context.id();
            e.deviceName = context.name();
            e.commit();
        }
    }

    static void contextClosed(DeviceContext context) {
        ContextClose e = new ContextClose();
        if (e.shouldCommit()) {
            e.context = context.toString();
            e.faulted = context.isFaulted();
            e.commit();
        }
    }

    static Object beginCompilation() {
        KernelCompilation e = new KernelCompilation();
        e.begin();
        return e;
    }

    static void endCompilation(Object token, DeviceContext context, Kernel kernel, @Nullable Throwable failure) {
        KernelCompilation e = (KernelCompilation) token;
        e.end();
        if (e.shouldCommit()) {
            e.context = context.toString();
            e.kernel = kernel.name();
            e.failure = failure == null ? null : failure.toString();
            e.commit();
        }
    }

    static void allocated(DeviceContext context, long bytes) {
        MemoryAllocation e = new MemoryAllocation();
        if (e.shouldCommit()) {
            e.context = context.toString();
            e.bytes = bytes;
            e.commit();
        }
    }

    static void freed(DeviceContext context, long bytes) {
        MemoryFree e = new MemoryFree();
        if (e.shouldCommit()) {
            e.context = context.toString();
            e.bytes = bytes;
            e.commit();
        }
    }

    static void faulted(DeviceContext context, Throwable fault) {
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
    static final class Operation extends Event {
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
    static final class KernelCompilation extends Event {
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
