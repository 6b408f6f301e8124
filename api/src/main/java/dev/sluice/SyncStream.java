package dev.sluice;

import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * The blocking facade over a {@link DeviceStream} (Mojo's {@code *_sync} family), for scripts, tests and
 * simple programs: each method enqueues the operation on the stream, in the stream's order as
 * {@link DeviceStream}'s enqueue of it would, and waits until the device has finished it and its future has
 * completed. Errors are thrown as the {@link SluiceException} the future failed with. Thread-safe.
 *
 * <p>Every method refuses, with {@link IllegalStateException} and before enqueuing anything, to run on a completion
 * thread ({@code sluice-completion-*}: it would wait for futures that only that thread completes) or on a host-function
 * thread of the stream's context ({@code sluice-host-*}: the stream's later work waits until the host function
 * returns). Do not call it on a non-blocking Reactor thread either.
 *
 * <p>{@link Thread#interrupt()}: a wait cut short by an interrupt throws a {@link SluiceException} whose cause is the
 * {@link InterruptedException}, with the thread's interrupt flag set again; the operation itself is not cancelled and
 * still runs in stream order (memory it writes must stay open until it has, as after any enqueue). A thread already
 * interrupted when it calls a method enqueues the operation, then throws at once if it would have to wait for it; if the
 * operation has already finished, the call returns its result and leaves the interrupt flag set.
 */
public final class SyncStream {

    private final DeviceStream stream;

    SyncStream(DeviceStream stream) {
        this.stream = stream;
    }

    /** The stream this facade enqueues on; its asynchronous methods may be mixed with these, in one order. */
    public DeviceStream stream() {
        return stream;
    }

    /** Allocates in stream order and waits until the memory exists. */
    public DeviceBuffer allocate(DType type, long count) {
        return awaitHere(blocking().enqueueAllocate(type, count).ready());
    }

    /**
     * Copies all of {@code source} to {@code destination} and waits until it is there: {@link DeviceStream#enqueueCopy(HostData,
     * DeviceBuffer)}, with its checks. {@code source} may be changed again once this returns.
     */
    public void copy(HostData source, DeviceBuffer destination) {
        awaitHere(blocking().enqueueCopy(source, destination));
    }

    /**
     * Copies all of {@code source} into {@code destination} and waits until it is there, ready to read:
     * {@link DeviceStream#enqueueCopy(DeviceBuffer, HostData)}, with its checks.
     */
    public void copy(DeviceBuffer source, HostData destination) {
        awaitHere(blocking().enqueueCopy(source, destination));
    }

    /** Copies device to device, or between contexts of one backend, and waits: {@link DeviceStream#enqueueCopy(DeviceBuffer, DeviceBuffer)}. */
    public void copy(DeviceBuffer source, DeviceBuffer destination) {
        awaitHere(blocking().enqueueCopy(source, destination));
    }

    /**
     * Copies a rectangle of {@code height} rows of {@code width} elements, rows {@code sourcePitch} and
     * {@code destinationPitch} elements apart, and waits until it is there:
     * {@link DeviceStream#enqueueCopy2D(HostData, long, DeviceBuffer, long, long, long)}, with its checks.
     * {@code source} may be changed again once this returns.
     */
    public void copy2D(HostData source, long sourcePitch, DeviceBuffer destination, long destinationPitch, long width,
            long height) {
        awaitHere(blocking().enqueueCopy2D(source, sourcePitch, destination, destinationPitch, width, height));
    }

    /**
     * Copies a rectangle into host memory and waits until it is there, ready to read:
     * {@link DeviceStream#enqueueCopy2D(DeviceBuffer, long, HostData, long, long, long)}, with its checks.
     */
    public void copy2D(DeviceBuffer source, long sourcePitch, HostData destination, long destinationPitch, long width,
            long height) {
        awaitHere(blocking().enqueueCopy2D(source, sourcePitch, destination, destinationPitch, width, height));
    }

    /**
     * Copies a rectangle between two device buffers of this context and waits:
     * {@link DeviceStream#enqueueCopy2D(DeviceBuffer, long, DeviceBuffer, long, long, long)}, with its checks.
     */
    public void copy2D(DeviceBuffer source, long sourcePitch, DeviceBuffer destination, long destinationPitch, long width,
            long height) {
        awaitHere(blocking().enqueueCopy2D(source, sourcePitch, destination, destinationPitch, width, height));
    }

    /**
     * Reads a whole F32 buffer into a new array.
     *
     * @throws InvalidArgumentException naming {@code source} for null, a buffer of another type or one of more elements
     *                                  than a Java array holds
     */
    public float[] toFloatArray(DeviceBuffer source) {
        float[] out = new float[arrayLength(source)];
        copy(source, HostData.of(out));
        return out;
    }

    /**
     * Reads a whole F64 buffer into a new array.
     *
     * @throws InvalidArgumentException naming {@code source} for null, a buffer of another type or one of more elements
     *                                  than a Java array holds
     */
    public double[] toDoubleArray(DeviceBuffer source) {
        double[] out = new double[arrayLength(source)];
        copy(source, HostData.of(out));
        return out;
    }

    /**
     * Reads a whole I32/U32 buffer into a new array.
     *
     * @throws InvalidArgumentException naming {@code source} for null, a buffer of another type or one of more elements
     *                                  than a Java array holds
     */
    public int[] toIntArray(DeviceBuffer source) {
        int[] out = new int[arrayLength(source)];
        copy(source, HostData.of(out));
        return out;
    }

    /**
     * Reads a whole I64/U64 buffer into a new array.
     *
     * @throws InvalidArgumentException naming {@code source} for null, a buffer of another type or one of more elements
     *                                  than a Java array holds
     */
    public long[] toLongArray(DeviceBuffer source) {
        long[] out = new long[arrayLength(source)];
        copy(source, HostData.of(out));
        return out;
    }

    /**
     * The length of the array that holds {@code source}, checked before the array is made: a buffer too large for
     * one is refused at the call, not with an arithmetic or memory error on the way.
     */
    private static int arrayLength(DeviceBuffer source) {
        Checks.notNull("source", source);
        long count = source.count();
        if (count > MAX_ARRAY_LENGTH) {
            throw new InvalidArgumentException("source", source + " has " + count + " elements, more than the "
                    + MAX_ARRAY_LENGTH + " a Java array holds; copy it in slices");
        }
        return (int) count;
    }

    /** The longest array every JVM makes (as the JDK's own collections assume). */
    private static final int MAX_ARRAY_LENGTH = Integer.MAX_VALUE - 8;

    /**
     * Sets every element of {@code destination} to {@code value} and waits until done; see
     * {@link DeviceStream#enqueueFill}.
     */
    public void fill(DeviceBuffer destination, Number value) {
        awaitHere(blocking().enqueueFill(destination, value));
    }

    /**
     * Sets every byte of {@code destination} to {@code byteValue} (0 to 255, or -128 to 127) and waits until done;
     * see {@link DeviceStream#enqueueMemset}.
     */
    public void memset(DeviceBuffer destination, int byteValue) {
        awaitHere(blocking().enqueueMemset(destination, byteValue));
    }

    /**
     * Launches {@code function} and waits until the kernel has finished; a fault in the kernel is thrown here. The
     * arguments are checked as by {@link DeviceStream#enqueueLaunch}.
     */
    public void launch(DeviceFunction function, LaunchConfig config, Object... arguments) {
        awaitHere(blocking().enqueueLaunch(function, config, arguments));
    }

    /**
     * Records {@code event} on the stream and waits until everything enqueued before it has finished; see
     * {@link DeviceStream#enqueueRecord}.
     */
    public void record(DeviceEvent event) {
        awaitHere(blocking().enqueueRecord(event));
    }

    /**
     * Runs {@code function} on a host thread of the context in stream order and waits until it has returned; what it
     * throws is thrown here. See {@link DeviceStream#enqueueHostFunction}.
     */
    public void hostFunction(Runnable function) {
        awaitHere(blocking().enqueueHostFunction(function));
    }

    /** Frees {@code buffer} in stream order and waits until it is freed; see {@link DeviceStream#enqueueFree}. */
    public void free(DeviceBuffer buffer) {
        awaitHere(blocking().enqueueFree(buffer));
    }

    /**
     * Refuses a blocking call on a thread where it would wedge {@code context}: any Sluice completion thread, whose
     * futures the wait may need, and the host-function threads of {@code context}, whose stream is held until the
     * function returns.
     *
     * @throws IllegalStateException naming {@code what}
     */
    static void refuseBlocking(DeviceContext context, String what) {
        context.refuseBlocking(what);
    }

    /** The stream, once {@link #refuseBlocking} has allowed a blocking call on this thread: called before the enqueue. */
    private DeviceStream blocking() {
        refuseBlocking(stream.context(), "a SyncStream call");
        return stream;
    }

    /** Waits for the {@code future} of an operation enqueued through {@link #blocking()}; see the class comment. */
    private static <T> T awaitHere(Future<T> future) {
        return awaitInterruptibly(future);
    }

    /**
     * Waits for {@code future}; an interrupt ends the wait with a {@link SluiceException} caused by the
     * {@link InterruptedException}, the interrupt flag set again. Failures as in {@link #await}.
     */
    static <T> T awaitInterruptibly(Future<T> future) {
        try {
            // A result already there is returned, the flag left set: only a call that would wait ends on an interrupt
            // (CompletableFuture.get() looks at the flag only before it would block).
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SluiceException("interrupted while waiting for " + future
                    + "; the operation was not cancelled and goes on in stream order", e);
        } catch (ExecutionException e) {
            throw unwrap(e);
        }
    }

    private static RuntimeException unwrap(ExecutionException e) {
        Throwable c = e.getCause();
        if (c instanceof RuntimeException re) {
            return re;
        }
        if (c instanceof Error err) {
            throw err;
        }
        return new SluiceException("operation failed: " + c, c);
    }

    /**
     * Waits for {@code future} and returns its value, rethrowing a {@link SluiceException} failure as it is
     * and wrapping anything else in one.
     */
    static <T> T await(Future<T> future) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof SluiceException se) {
                throw se;
            }
            if (c instanceof RuntimeException re) {
                throw re;
            }
            if (c instanceof Error err) {
                throw err;
            }
            throw new SluiceException("operation failed: " + c, c);
        } catch (CancellationException e) {
            throw e;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
