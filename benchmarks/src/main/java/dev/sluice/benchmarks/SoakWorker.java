package dev.sluice.benchmarks;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceFuture;
import dev.sluice.DeviceStream;
import dev.sluice.HostBuffer;
import dev.sluice.HostData;
import dev.sluice.LaunchConfig;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * One thread of the soak benchmark: a server's request loop. Each request opens a stream of its own, uploads a small
 * request, launches {@link SoakKernel} over the long-lived {@link SoakWeights} and the request, downloads the result,
 * closes the stream, and checks every element against the host's reference. Now and then (drawn from a seeded random
 * sequence, so a run can be repeated) a request varies:
 * <ul>
 * <li>one in {@value #PINNED_EVERY}: upload and download through a pinned {@link HostBuffer} instead of Java arrays;
 * <li>one in {@value #ORDERED_EVERY}: its device buffers are allocated and freed in stream order
 * ({@link DeviceStream#enqueueAllocate}, {@link DeviceStream#enqueueFree}) instead of the worker's own;
 * <li>one in {@value #CANCEL_EVERY}: the kernel's or the download's future is cancelled before the stream is closed.
 * Cancellation is observer-only: the work still runs, and {@link DeviceStream#close()} waits for it, so the result
 * read after the close must be right all the same.
 * </ul>
 * The worker's own device buffers and pinned buffer live as long as the worker, as a server's would.
 */
final class SoakWorker implements Runnable, AutoCloseable {

    static final int PINNED_EVERY = 4;
    static final int ORDERED_EVERY = 8;
    static final int CANCEL_EVERY = 16;

    /** Failures printed in full; the rest are only counted, so that a broken run does not flood the output. */
    private static final int FAILURES_SHOWN = 5;
    private static final AtomicInteger SHOWN = new AtomicInteger();

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

    private final DeviceContext ctx;
    private final DeviceFunction kernel;
    private final SoakWeights weights;
    private final SoakTally tally;
    private final BooleanSupplier stop;
    private final int n;
    private final LaunchConfig config;
    private final SplittableRandom random;
    private final int[] request;
    private final int[] result;
    private final DeviceBuffer deviceRequest;
    private final DeviceBuffer deviceResult;
    /** Request in the first half, result in the second. */
    private final HostBuffer staging;

    SoakWorker(DeviceContext ctx, DeviceFunction kernel, SoakWeights weights, SoakTally tally, BooleanSupplier stop,
            int elements, long seed) {
        this.ctx = ctx;
        this.kernel = kernel;
        this.weights = weights;
        this.tally = tally;
        this.stop = stop;
        this.n = elements;
        this.config = LaunchConfig.forElements(elements);
        this.random = new SplittableRandom(seed);
        this.request = new int[elements];
        this.result = new int[elements];
        this.deviceRequest = ctx.allocate(DType.I32, elements);
        this.deviceResult = ctx.allocate(DType.I32, elements);
        this.staging = ctx.allocateHost(DType.I32, 2L * elements);
    }

    @Override
    public void run() {
        while (!stop.getAsBoolean()) {
            try {
                serve();
            } catch (RuntimeException | Error e) {
                tally.errors.increment();
                show("request failed", e);
                if (ctx.isFaulted()) {
                    return; // every later request would fail the same way
                }
            }
        }
    }

    /** One request, from opening its stream to checking its result. */
    private void serve() {
        int seed = random.nextInt(Integer.MAX_VALUE);
        for (int i = 0; i < n; i++) {
            request[i] = random.nextInt(SoakKernel.VALUE_BOUND);
        }
        Arrays.fill(result, -1); // a download that did not happen must not pass for the previous request's result
        boolean pinned = random.nextInt(PINNED_EVERY) == 0;
        boolean ordered = random.nextInt(ORDERED_EVERY) == 0;
        boolean cancel = random.nextInt(CANCEL_EVERY) == 0;
        boolean cancelDownload = random.nextBoolean();
        HostBuffer stagedRequest = staging.slice(0, n);
        HostBuffer stagedResult = staging.slice(n, n);
        if (pinned) {
            MemorySegment.copy(request, 0, stagedRequest.segment(), INT, 0, n);
            stagedResult.segment().fill((byte) 0xFF);
        }
        DeviceStream stream = ctx.createStream();
        try {
            DeviceBuffer in = ordered ? stream.enqueueAllocate(DType.I32, n) : deviceRequest;
            DeviceBuffer out = ordered ? stream.enqueueAllocate(DType.I32, n) : deviceResult;
            if (pinned) {
                stream.enqueueCopy(stagedRequest, in);
            } else {
                stream.enqueueCopy(HostData.of(request), in);
            }
            DeviceFuture<Void> launched = stream.enqueueLaunch(kernel, config, weights.weights, weights.bias,
                    weights.elements(), in, out, (long) n, seed);
            DeviceFuture<Void> downloaded = pinned ? stream.enqueueCopy(out, stagedResult) : stream.enqueueCopy(out, HostData.of(result));
            if (ordered) {
                stream.enqueueFree(in); // after the download in stream order: the memory goes back once it is read
                stream.enqueueFree(out);
            }
            if (cancel) {
                DeviceFuture<Void> victim = cancelDownload ? downloaded : launched;
                if (victim.cancel(false)) {
                    tally.cancelled.increment();
                } else {
                    tally.cancelTooLate.increment();
                }
                if (!cancelDownload) {
                    downloaded.join(); // a later future of the stream is not affected by an earlier one's cancellation
                }
                // A cancelled download is not joined: close() below waits for the device work and its futures.
            } else {
                downloaded.join();
            }
        } finally {
            stream.close();
        }
        if (pinned) {
            MemorySegment.copy(stagedResult.segment(), INT, 0, result, 0, n);
            tally.pinned.increment();
        }
        if (ordered) {
            tally.streamOrdered.increment();
        }
        check(seed, pinned, ordered, cancel ? (cancelDownload ? "download" : "kernel") : null);
        tally.requests.increment();
    }

    private void check(int seed, boolean pinned, boolean ordered, String cancelled) {
        for (int i = 0; i < n; i++) {
            int want = SoakKernel.expected(weights.hostWeights, weights.hostBias, request[i], i, seed);
            if (result[i] != want) {
                tally.wrong.increment();
                show("wrong result: element " + i + " of " + n + " is " + result[i] + ", expected " + want + " (seed " + seed
                        + (pinned ? ", pinned" : ", arrays") + (ordered ? ", stream-ordered buffers" : "")
                        + (cancelled != null ? ", " + cancelled + " future cancelled" : "") + ")", null);
                return; // one wrong request counts once
            }
        }
    }

    private static void show(String what, Throwable e) {
        if (SHOWN.getAndIncrement() < FAILURES_SHOWN) {
            System.err.println("soak: " + Thread.currentThread().getName() + ": " + what);
            if (e != null) {
                e.printStackTrace();
            }
        }
    }

    /** Frees the worker's own buffers; call after its thread has ended. */
    @Override
    public void close() {
        deviceRequest.close();
        deviceResult.close();
        staging.close();
    }
}
