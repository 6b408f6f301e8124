package dev.sluice.spi.support;

import dev.sluice.spi.GraphHandle;
import dev.sluice.spi.StreamHandle;
import java.util.Objects;

/**
 * An executable graph of a native backend, instantiated from stream capture. Launches run inside its
 * {@link Lifetime}, so the native graph is destroyed exactly once, never during a launch of it, and a launch after
 * {@link #destroy()} throws {@link dev.sluice.ClosedResourceException}.
 *
 * <p>For backend authors: the CUDA and HIP backends hand these out as their {@link GraphHandle}.
 */
public final class NativeGraph implements GraphHandle {

    /** Launches an executable graph on a stream: the backend's native call. */
    @FunctionalInterface
    public interface Launcher {

        /** Enqueues {@code exec} on native stream {@code stream}. */
        void launch(long exec, long stream);
    }

    private final long exec;
    private final Launcher launcher;
    private final Lifetime life;

    /**
     * @param exec     the native executable graph; owned from now on
     * @param launcher launches it
     * @param destroy  destroys it and what it was made from (once)
     */
    public NativeGraph(long exec, Launcher launcher, Runnable destroy) {
        this.exec = exec;
        this.launcher = Objects.requireNonNull(launcher, "launcher");
        this.life = new Lifetime(this, destroy);
    }

    /** Enqueues a replay on {@code stream} (through its {@link StreamHandle#nativeHandle()}). */
    @Override
    public void launch(StreamHandle stream) {
        life.enter();
        try {
            launcher.launch(exec, stream.nativeHandle());
        } finally {
            life.exit();
        }
    }

    /** Idempotent and safe from any thread; replays already launched still run (the drivers defer the free). */
    @Override
    public void destroy() {
        life.close();
    }

    @Override
    public String toString() {
        return "NativeGraph[0x" + Long.toHexString(exec) + "]";
    }
}
