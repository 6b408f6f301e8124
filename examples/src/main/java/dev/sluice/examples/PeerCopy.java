package dev.sluice.examples;

import dev.sluice.Api;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostData;
import java.util.Locale;

/**
 * A copy between two GPUs (cudarc's {@code memcpy_peer}; Mojo's {@code can_access} and {@code enable_peer_access} on
 * {@code DeviceContext}): 64 MiB go from device 1 to device 0 on a stream of device 0, first as they are (the driver
 * stages the copy through the host where the devices cannot reach each other), then, where
 * {@link DeviceContext#canAccess} says they can, after {@link DeviceContext#enablePeerAccess} both ways (directly
 * over NVLink or PCIe). Each copy is checked element by element and timed from enqueue to its future (best of 3).
 * With one device it says so and does nothing. On the CPU simulator run it with {@code -Dsluice.cpu.devices=2}.
 * It prints (the bandwidths are what the machine measures):
 *
 * <pre>
 * Running on cuda device 0: NVIDIA H200, compute capability 9.0, driver 13.0
 * and on cuda device 1: NVIDIA H200, compute capability 9.0, driver 13.0
 * device 1 -> device 0, 64 MiB, peer access off: N GB/s, every element OK
 * device 1 -> device 0, 64 MiB, peer access on:  N GB/s, every element OK
 * </pre>
 */
public final class PeerCopy {

    static final int N = 16 << 20; // 64 MiB of I32

    private PeerCopy() {
    }

    public static void main(String[] args) {
        try (DeviceContext ctx = DeviceContext.open()) {
            int devices = DeviceContext.deviceCount(ctx.api());
            if (devices < 2) {
                Examples.printDevice(ctx);
                System.out.println("PeerCopy needs two " + ctx.api().id() + " devices; this machine has " + devices
                        + (ctx.api() == Api.CPU ? " (the CPU simulator takes -Dsluice.cpu.devices=2)" : ""));
                return;
            }
            try (DeviceContext peer = DeviceContext.open(ctx.api(), 1)) {
                if (!run(ctx, peer)) {
                    System.exit(1);
                }
            }
        }
    }

    /** Copies from {@code peer} to {@code ctx} without and (where possible) with peer access; true if every copy was exact. */
    static boolean run(DeviceContext ctx, DeviceContext peer) {
        Examples.printDevice(ctx);
        System.out.println("and on " + Examples.device(peer));
        int[] pattern = new int[N];
        for (int i = 0; i < N; i++) {
            pattern[i] = i ^ 0x5A5A5A5A;
        }
        boolean ok;
        try (DeviceStream stream = ctx.createStream();
                DeviceBuffer source = peer.allocate(DType.I32, N);
                DeviceBuffer destination = ctx.allocate(DType.I32, N)) {
            peer.stream().enqueueCopy(HostData.of(pattern), source).join();
            ok = copy("peer access off:", stream, source, destination, pattern);
            if (ctx.canAccess(peer) && peer.canAccess(ctx)) {
                ctx.enablePeerAccess(peer);
                peer.enablePeerAccess(ctx);
                ok &= copy("peer access on: ", stream, source, destination, pattern);
            } else {
                System.out.println("device 1 -> device 0: no direct access between these devices (canAccess is false)");
            }
        }
        return ok;
    }

    private static boolean copy(String label, DeviceStream stream, DeviceBuffer source, DeviceBuffer destination, int[] expected) {
        double best = Double.MAX_VALUE;
        for (int round = 0; round < 3; round++) {
            stream.enqueueFill(destination, 0).join();
            long t0 = System.nanoTime();
            DeviceFuture<Void> copied = stream.enqueueCopy(source, destination);
            copied.join();
            best = Math.min(best, (System.nanoTime() - t0) / 1e9);
        }
        int[] got = new int[expected.length];
        stream.enqueueCopy(destination, HostData.of(got)).join();
        int wrong = -1;
        for (int i = 0; i < got.length && wrong < 0; i++) {
            if (got[i] != expected[i]) {
                wrong = i;
            }
        }
        double gbps = source.byteSize() / best / 1e9;
        System.out.println(String.format(Locale.ROOT, "device 1 -> device 0, %d MiB, %s %.1f GB/s, ", source.byteSize() >> 20, label, gbps)
                + (wrong < 0 ? "every element OK" : "WRONG at element " + wrong + ": " + got[wrong] + " instead of " + expected[wrong]));
        return wrong < 0;
    }
}
