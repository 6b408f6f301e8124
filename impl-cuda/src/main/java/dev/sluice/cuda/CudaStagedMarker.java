package dev.sluice.cuda;

import dev.sluice.spi.Marker;

/**
 * A completion marker recorded while downloads into memory that is not pinned were still on their way to the host
 * (see {@link Staging}): done once the device's marker is done and every such download enqueued before it has been
 * copied to its destination. Waits of other streams on it wait for {@link #device} only: device work does not read
 * the destination.
 */
final class CudaStagedMarker implements Marker {

    final Marker device;
    private final CudaStream stream;
    private final long downloads;

    CudaStagedMarker(Marker device, CudaStream stream, long downloads) {
        this.device = device;
        this.stream = stream;
        this.downloads = downloads;
    }

    @Override
    public boolean isDone() {
        return device.isDone() && stream.downloadsDone(downloads);
    }

    @Override
    public boolean awaitDone(long timeoutNanos) {
        long start = System.nanoTime();
        return device.awaitDone(timeoutNanos) && stream.awaitDownloads(downloads, timeoutNanos - (System.nanoTime() - start));
    }

    @Override
    public void release() {
        device.release();
    }

    @Override
    public void awaited() {
        device.awaited();
    }
}
