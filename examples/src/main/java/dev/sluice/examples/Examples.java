package dev.sluice.examples;

import dev.sluice.Api;
import dev.sluice.DeviceContext;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.StringJoiner;

/** What the examples share: the line naming the device they ran on, and small printing helpers. */
final class Examples {

    private Examples() {
    }

    /** "cuda device 0: NVIDIA H200, compute capability 9.0, driver 13.0"; for the CPU backend its name and Java version. */
    static String device(DeviceContext ctx) {
        String details = ctx.api() == Api.CPU ? ctx.driverVersion()
                : "compute capability " + ctx.computeCapability() + ", driver " + ctx.driverVersion();
        return ctx.api().id() + " device " + ctx.id() + ": " + ctx.name() + ", " + details;
    }

    /** The first line every example prints. */
    static void printDevice(DeviceContext ctx) {
        System.out.println("Running on " + device(ctx));
    }

    /** "[0.0, 1.0, 2.0, 3.0, ..., 1023.0]": the first four values and the last. */
    static String preview(float[] values) {
        StringJoiner j = new StringJoiner(", ", "[", "]");
        for (int i = 0; i < Math.min(4, values.length); i++) {
            j.add(Float.toString(values[i]));
        }
        if (values.length > 5) {
            j.add("...");
        }
        if (values.length > 4) {
            j.add(Float.toString(values[values.length - 1]));
        }
        return j.toString();
    }

    /**
     * Flushes the C library's stdout. Device {@code printf} output (CUDA, HIP) is written there by the driver,
     * and the C library buffers it when stdout is a pipe or a file, so without this it could appear after what
     * Java prints next, or only at exit.
     */
    static void flushNativeStdout() {
        try {
            Linker linker = Linker.nativeLinker();
            MemorySegment fflush = linker.defaultLookup().find("fflush").orElse(null);
            if (fflush != null) {
                MethodHandle h = linker.downcallHandle(fflush, FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
                int ignored = (int) h.invokeExact(MemorySegment.NULL); // fflush(NULL) flushes every output stream
            }
        } catch (Throwable t) {
            // Best effort: the output is still complete, only perhaps out of order.
        }
    }
}
