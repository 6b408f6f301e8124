package dev.sluice.cpu;

import dev.sluice.spi.Marker;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A completion marker: reached when the stream's drain gets to it. Reports the context's fault if the
 * context had faulted by the time it was reached, as a GPU reports a sticky error on every later query.
 */
final class CpuMarker implements CpuStream.Op, Marker {

    private final CpuContext context;
    private final CompletableFuture<Void> reached = new CompletableFuture<>();
    private volatile boolean faultedBefore;

    CpuMarker(CpuContext context) {
        this.context = context;
    }

    @Override
    public void run() {
        faultedBefore = context.isFaulted();
        reached.complete(null);
    }

    CompletableFuture<Void> reached() {
        return reached;
    }

    @Override
    public boolean isDone() {
        if (!reached.isDone()) {
            return false;
        }
        if (faultedBefore) {
            throw context.faultException();
        }
        return true;
    }

    @Override
    public boolean awaitDone(long timeoutNanos) {
        try {
            reached.get(timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException e) {
            throw new AssertionError(e);
        }
        return isDone();
    }

    @Override
    public void release() {
    }
}
