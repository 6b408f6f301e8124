package dev.sluice.examples;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceEvent;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostData;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;

/**
 * The two-stream example of Mojo's {@code DeviceStream} page: work on a new stream waits for an event recorded
 * on the default stream ({@code record_event}, {@code enqueue_wait_for}):
 *
 * <pre>{@code
 * var default_stream = ctx.stream()
 * var new_stream = ctx.create_stream()
 * var event = default_stream.create_event()
 * new_stream.enqueue_wait_for(event)
 * default_stream.record_event(event)
 * }</pre>
 *
 * The page enqueues the wait before the record. A wait sees the last record made before it, and an event never
 * recorded is complete (in CUDA, HIP and Sluice alike), so that wait lets the new stream go on at once. Here
 * the record comes first, so the wait orders real work: the default stream writes {@code x[i] = i} with a
 * kernel and records the event; the new stream waits for it, adds 20 and copies the result to the host. Wrong
 * ordering would read memory the first kernel had not written yet. The second round does the same with
 * Sluice's own device-side wait on the future of the producing kernel, with no event at all. It prints:
 *
 * <pre>
 * record_event / enqueue_wait_for: [20.0, 21.0, 22.0, 23.0, ..., 1048595.0] OK
 * waitFor(future):                 [20.0, 21.0, 22.0, 23.0, ..., 1048595.0] OK
 * </pre>
 */
public final class TwoStreams {

    static final int N = 1 << 20;

    /** Writes {@code data[i] = i} for {@code i < n}. */
    static final Kernel IOTA = Kernel.named("iota")
            .param(KernelParam.pointer("data", DType.F32))
            .param(KernelParam.scalar("n", DType.I64))
            .cudaSource("""
                    extern "C" __global__ void iota(float* data, long long n) {
                        long long i = (long long) blockIdx.x * blockDim.x + threadIdx.x;
                        if (i < n) {
                            data[i] = (float) i;
                        }
                    }
                    """)
            .java(t -> {
                long i = t.globalIdX();
                if (i < t.longArg(1)) {
                    t.pointer(0).setAtIndex(JAVA_FLOAT, i, i);
                }
            })
            .build();

    private TwoStreams() {
    }

    public static void main(String[] args) {
        try (DeviceContext ctx = DeviceContext.open()) {
            if (!run(ctx)) {
                System.exit(1);
            }
        }
    }

    /** Runs both rounds; true if both read what the producer wrote. */
    static boolean run(DeviceContext ctx) {
        Examples.printDevice(ctx);
        DeviceStream defaultStream = ctx.stream();
        LaunchConfig config = LaunchConfig.forElements(N);
        boolean ok = true;
        try (DeviceStream newStream = ctx.createStream();
                DeviceEvent event = ctx.createEvent();
                DeviceFunction iota = ctx.compile(IOTA);
                DeviceFunction scalarAdd = ctx.compile(ScalarAdd.SCALAR_ADD);
                DeviceBuffer data = defaultStream.enqueueAllocate(DType.F32, N)) {

            // Round 1, with an event. The default stream produces, then records the event.
            defaultStream.enqueueLaunch(iota, config, data, N);
            defaultStream.enqueueRecord(event);
            // The new stream waits on the device for the event, then consumes. No host thread waits.
            newStream.waitFor(event);
            newStream.enqueueLaunch(scalarAdd, config, data, N, 20.0f);
            float[] result = new float[N];
            newStream.enqueueCopy(data, HostData.of(result)).join();
            ok &= report("record_event / enqueue_wait_for: ", result);

            // Round 2, with a future: wait for the operation itself.
            DeviceFuture<Void> produced = defaultStream.enqueueLaunch(iota, config, data, N);
            newStream.waitFor(produced);
            newStream.enqueueLaunch(scalarAdd, config, data, N, 20.0f);
            float[] again = new float[N];
            newStream.enqueueCopy(data, HostData.of(again)).join();
            ok &= report("waitFor(future):                 ", again);
        }
        return ok;
    }

    /** Prints the values and whether every one is i + 20. */
    private static boolean report(String label, float[] values) {
        boolean ok = true;
        for (int i = 0; i < values.length && ok; i++) {
            ok = values[i] == i + 20.0f;
        }
        System.out.println(label + Examples.preview(values) + (ok ? " OK" : " WRONG: the consumer did not wait"));
        return ok;
    }
}
