package dev.sluice;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Remembers, per stream, the future of the last operation that used a piece of memory, so that freeing it
 * waits for every use (cudarc's habit: memory is never freed while the device may still touch it).
 * Cheap on the hot path: a short array scanned under the tracker's own monitor.
 */
final class UseTracker {

    private DeviceStream[] streams = new DeviceStream[2];
    private DeviceFuture<?>[] lastUses = new DeviceFuture<?>[2];
    private int size;

    synchronized void noteUse(DeviceStream stream, DeviceFuture<?> future) {
        for (int i = 0; i < size; i++) {
            if (streams[i] == stream) {
                lastUses[i] = future;
                return;
            }
        }
        if (size == streams.length) {
            streams = java.util.Arrays.copyOf(streams, size * 2);
            lastUses = java.util.Arrays.copyOf(lastUses, size * 2);
        }
        streams[size] = stream;
        lastUses[size++] = future;
    }

    /** The last uses not yet complete, by any stream other than {@code except} (which orders itself). */
    synchronized List<DeviceFuture<?>> pendingUses(DeviceStream except) {
        List<DeviceFuture<?>> out = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            if (streams[i] != except && !lastUses[i].isDone()) {
                out.add(lastUses[i]);
            }
        }
        return out;
    }

    /** Completes when every use seen so far has completed (normally or not). */
    synchronized CompletableFuture<Void> allUsesDone() {
        CompletableFuture<?>[] fs = new CompletableFuture<?>[size];
        for (int i = 0; i < size; i++) {
            fs[i] = lastUses[i].handle((v, e) -> null);
        }
        return CompletableFuture.allOf(fs);
    }
}
