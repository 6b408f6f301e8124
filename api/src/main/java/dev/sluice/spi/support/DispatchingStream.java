package dev.sluice.spi.support;

import dev.sluice.LaunchConfig;
import dev.sluice.spi.ContextHandle;
import dev.sluice.spi.DeviceMemory;
import dev.sluice.spi.FunctionHandle;
import dev.sluice.spi.LaunchArguments;
import dev.sluice.spi.StreamHandle;
import dev.sluice.spi.WorkStep;
import java.lang.foreign.MemorySegment;

/**
 * A {@link StreamHandle} whose backend implements each kind of {@link WorkStep} as a method of its own, in the terms of
 * its driver: {@link #enqueue} hands each step to the method of its kind. For backend authors; every built-in backend's
 * stream extends it.
 */
public abstract class DispatchingStream implements StreamHandle {

    /** For subclasses. */
    protected DispatchingStream() {
    }

    @Override
    public final void enqueue(WorkStep step) {
        switch (step) {
            case WorkStep.Launch l -> launch(l.function(), l.config(), l.arguments());
            case WorkStep.Upload u -> copyHostToDevice(u.source(), u.destination(), u.destinationOffset(), u.bytes());
            case WorkStep.Download d -> copyDeviceToHost(d.source(), d.sourceOffset(), d.destination(), d.bytes());
            case WorkStep.Copy c -> copyDeviceToDevice(c.source(), c.sourceOffset(), c.destination(), c.destinationOffset(),
                    c.bytes());
            case WorkStep.Fill f -> fill(f.destination(), f.offset(), f.count(), f.elementBytes(), f.bits());
            case WorkStep.PeerCopy p -> copyPeer(p.sourceContext(), p.source(), p.sourceOffset(), p.destinationContext(),
                    p.destination(), p.destinationOffset(), p.bytes());
            case WorkStep.Upload2D u -> copyHostToDevice2D(u.source(), u.sourcePitch(), u.destination(),
                    u.destinationOffset(), u.destinationPitch(), u.widthBytes(), u.height());
            case WorkStep.Download2D d -> copyDeviceToHost2D(d.source(), d.sourceOffset(), d.sourcePitch(),
                    d.destination(), d.destinationPitch(), d.widthBytes(), d.height());
            case WorkStep.Copy2D c -> copyDeviceToDevice2D(c.source(), c.sourceOffset(), c.sourcePitch(), c.destination(),
                    c.destinationOffset(), c.destinationPitch(), c.widthBytes(), c.height());
        }
    }

    /** Copies {@code bytes} from host memory to {@code destination} at {@code destinationOffset}, in stream order. */
    protected abstract void copyHostToDevice(MemorySegment source, DeviceMemory destination, long destinationOffset,
            long bytes);

    /** Copies {@code bytes} from {@code source} at {@code sourceOffset} to host memory, in stream order. */
    protected abstract void copyDeviceToHost(DeviceMemory source, long sourceOffset, MemorySegment destination, long bytes);

    /** Copies {@code bytes} between two buffers of this context, in stream order. */
    protected abstract void copyDeviceToDevice(DeviceMemory source, long sourceOffset, DeviceMemory destination,
            long destinationOffset, long bytes);

    /** Copy between two contexts' memory (peer copy on GPUs); this stream belongs to the destination context. */
    protected abstract void copyPeer(ContextHandle sourceContext, DeviceMemory source, long sourceOffset,
            ContextHandle destinationContext, DeviceMemory destination, long destinationOffset, long bytes);

    /**
     * Copies a rectangle ({@link WorkStep.Upload2D}); the default enqueues one {@link #copyHostToDevice} per row, so
     * every backend has it; backends with a native pitched copy override it.
     */
    protected void copyHostToDevice2D(MemorySegment source, long sourcePitch, DeviceMemory destination,
            long destinationOffset, long destinationPitch, long widthBytes, long height) {
        for (long row = 0; row < height; row++) {
            copyHostToDevice(source.asSlice(row * sourcePitch, widthBytes), destination,
                    destinationOffset + row * destinationPitch, widthBytes);
        }
    }

    /** {@link #copyHostToDevice2D} the other way ({@link WorkStep.Download2D}); the default copies row by row. */
    protected void copyDeviceToHost2D(DeviceMemory source, long sourceOffset, long sourcePitch, MemorySegment destination,
            long destinationPitch, long widthBytes, long height) {
        for (long row = 0; row < height; row++) {
            copyDeviceToHost(source, sourceOffset + row * sourcePitch, destination.asSlice(row * destinationPitch,
                    widthBytes), widthBytes);
        }
    }

    /** {@link #copyHostToDevice2D} between two buffers of this context ({@link WorkStep.Copy2D}); row by row by default. */
    protected void copyDeviceToDevice2D(DeviceMemory source, long sourceOffset, long sourcePitch, DeviceMemory destination,
            long destinationOffset, long destinationPitch, long widthBytes, long height) {
        for (long row = 0; row < height; row++) {
            copyDeviceToDevice(source, sourceOffset + row * sourcePitch, destination,
                    destinationOffset + row * destinationPitch, widthBytes);
        }
    }

    /** Sets {@code count} elements of {@code elementBytes} (1, 2, 4 or 8) to the low bits of {@code bits}. */
    protected abstract void fill(DeviceMemory destination, long offset, long count, int elementBytes, long bits);

    /** Launches {@code function} over {@code config}'s grid with {@code arguments}, in stream order. */
    protected abstract void launch(FunctionHandle function, LaunchConfig config, LaunchArguments arguments);
}
