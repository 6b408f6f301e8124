package dev.sluice;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;

/**
 * The blocking facade over a {@link DeviceStream} (Mojo's {@code *_sync} family), for scripts, tests and
 * simple programs: each method enqueues the operation on the stream and waits until the device has
 * finished it. Errors are thrown as the {@link SluiceException} the future failed with. Must not be called
 * on a completion thread (it would wait for itself) or on a non-blocking Reactor thread.
 */
public final class SyncStream {

    private final DeviceStream stream;

    SyncStream(DeviceStream stream) {
        this.stream = stream;
    }

    public DeviceStream stream() {
        return stream;
    }

    /** Allocates in stream order and waits until the memory exists. */
    public DeviceBuffer allocate(DType type, long count) {
        return await(stream.enqueueAllocate(type, count).ready());
    }

    public void copy(HostBuffer source, DeviceBuffer destination) {
        await(stream.enqueueCopy(source, destination));
    }

    public void copy(DeviceBuffer source, HostBuffer destination) {
        await(stream.enqueueCopy(source, destination));
    }

    public void copy(DeviceBuffer source, DeviceBuffer destination) {
        await(stream.enqueueCopy(source, destination));
    }

    public void copy(MemorySegment source, DeviceBuffer destination) {
        await(stream.enqueueCopy(source, destination));
    }

    public void copy(DeviceBuffer source, MemorySegment destination) {
        await(stream.enqueueCopy(source, destination));
    }

    public void copy(float[] source, DeviceBuffer destination) {
        await(stream.enqueueCopy(source, destination));
    }

    public void copy(DeviceBuffer source, float[] destination) {
        await(stream.enqueueCopy(source, destination));
    }

    public void copy(double[] source, DeviceBuffer destination) {
        await(stream.enqueueCopy(source, destination));
    }

    public void copy(DeviceBuffer source, double[] destination) {
        await(stream.enqueueCopy(source, destination));
    }

    public void copy(int[] source, DeviceBuffer destination) {
        await(stream.enqueueCopy(source, destination));
    }

    public void copy(DeviceBuffer source, int[] destination) {
        await(stream.enqueueCopy(source, destination));
    }

    public void copy(long[] source, DeviceBuffer destination) {
        await(stream.enqueueCopy(source, destination));
    }

    public void copy(DeviceBuffer source, long[] destination) {
        await(stream.enqueueCopy(source, destination));
    }

    public void copy(short[] source, DeviceBuffer destination) {
        await(stream.enqueueCopy(source, destination));
    }

    public void copy(DeviceBuffer source, short[] destination) {
        await(stream.enqueueCopy(source, destination));
    }

    public void copy(byte[] source, DeviceBuffer destination) {
        await(stream.enqueueCopy(source, destination));
    }

    public void copy(DeviceBuffer source, byte[] destination) {
        await(stream.enqueueCopy(source, destination));
    }

    /** Reads a whole F32 buffer into a new array. */
    public float[] toFloatArray(DeviceBuffer source) {
        float[] out = new float[Math.toIntExact(source.count())];
        copy(source, out);
        return out;
    }

    /** Reads a whole F64 buffer into a new array. */
    public double[] toDoubleArray(DeviceBuffer source) {
        double[] out = new double[Math.toIntExact(source.count())];
        copy(source, out);
        return out;
    }

    /** Reads a whole I32/U32 buffer into a new array. */
    public int[] toIntArray(DeviceBuffer source) {
        int[] out = new int[Math.toIntExact(source.count())];
        copy(source, out);
        return out;
    }

    /** Reads a whole I64/U64 buffer into a new array. */
    public long[] toLongArray(DeviceBuffer source) {
        long[] out = new long[Math.toIntExact(source.count())];
        copy(source, out);
        return out;
    }

    public void fill(DeviceBuffer destination, Number value) {
        await(stream.enqueueFill(destination, value));
    }

    public void memset(DeviceBuffer destination, int byteValue) {
        await(stream.enqueueMemset(destination, byteValue));
    }

    public void launch(DeviceFunction function, LaunchConfig config, Object... arguments) {
        await(stream.enqueueLaunch(function, config, arguments));
    }

    public void record(DeviceEvent event) {
        await(stream.enqueueRecord(event));
    }

    public void hostFunction(Runnable function) {
        await(stream.enqueueHostFunction(function));
    }

    public void free(DeviceBuffer buffer) {
        await(stream.enqueueFree(buffer));
    }

    /**
     * Waits for {@code future} and returns its value, rethrowing a {@link SluiceException} failure as it is
     * and wrapping anything else in one.
     */
    static <T> T await(java.util.concurrent.Future<T> future) {
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
