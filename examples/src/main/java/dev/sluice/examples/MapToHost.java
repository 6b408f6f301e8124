package dev.sluice.examples;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.SyncStream;

/**
 * The {@code map_to_host} initialisation of Mojo's {@code DeviceContext} page: two device buffers are mapped to
 * the host, filled there (the input with 0, 1, 2, ..., the output with 255), and the values reach the device
 * when the mappings close, as when Mojo's {@code with} block exits:
 *
 * <pre>{@code
 * with ctx.map_to_host(in_dev) as in_host, ctx.map_to_host(out_dev) as out_host:
 *     for i in range(length):
 *         in_host[i] = i
 *         out_host[i] = 255
 * }</pre>
 *
 * Then it reads both buffers back with plain copies, to show that the device holds the values, and prints:
 *
 * <pre>
 * in_dev:  [0.0, 1.0, 2.0, 3.0, ..., 1023.0]
 * out_dev: [255.0, 255.0, 255.0, 255.0, ..., 255.0]
 * </pre>
 *
 * Mapping copies the whole buffer both ways and blocks: use it for initialisation and tests, not on hot paths.
 */
public final class MapToHost {

    static final int LENGTH = 1024;

    private MapToHost() {
    }

    public static void main(String[] args) {
        try (DeviceContext ctx = DeviceContext.open()) {
            run(ctx);
        }
    }

    static void run(DeviceContext ctx) {
        Examples.printDevice(ctx);
        DeviceStream stream = ctx.stream();
        try (DeviceBuffer inDev = stream.enqueueAllocate(DType.F32, LENGTH);
                DeviceBuffer outDev = stream.enqueueAllocate(DType.F32, LENGTH)) {

            // Initialize the input and output with known values; closing the mappings writes them to the device.
            try (HostBuffer inHost = inDev.mapToHost(); HostBuffer outHost = outDev.mapToHost()) {
                for (int i = 0; i < LENGTH; i++) {
                    inHost.setFloat(i, i);
                    outHost.setFloat(i, 255);
                }
            }

            // Read them back through ordinary copies with the synchronous facade.
            SyncStream sync = ctx.sync();
            System.out.println("in_dev:  " + Examples.preview(sync.toFloatArray(inDev)));
            System.out.println("out_dev: " + Examples.preview(sync.toFloatArray(outDev)));
        }
    }
}
