package dev.sluice;

import dev.sluice.spi.ContextHandle;
import dev.sluice.spi.DeviceMemory;
import dev.sluice.spi.FunctionHandle;
import dev.sluice.spi.HostMemory;
import dev.sluice.spi.Marker;
import dev.sluice.spi.StreamHandle;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Constructor;
import java.lang.reflect.Proxy;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * Test support: a {@link DeviceContext} over a backend that does nothing but hand out the streams it is given, for
 * checking and timing the public layer alone. Its allocations have addresses of their own that nothing backs (so that two
 * never overlap), its pinned memory is ordinary native
 * memory, its kernels load without compiling, it reports no device attributes; other context calls return null.
 */
public final class FakeDevices {

    private FakeDevices() {
    }

    /**
     * Opens a context whose default stream is {@code streams.apply(0)} and whose n-th created stream is
     * {@code streams.apply(n)}. Not closable for real: end the JVM or drop it.
     */
    public static DeviceContext open(Api api, IntFunction<StreamHandle> streams) {
        return open(api, streams, ContextOptions.defaults());
    }

    /** What a fake context's backend was asked to release: pinned memory freed, events destroyed, kernels unloaded. */
    public static final class Releases {
        final AtomicInteger hostFrees = new AtomicInteger();
        final AtomicInteger eventDestroys = new AtomicInteger();
        final AtomicInteger unloads = new AtomicInteger();
    }

    /** {@link #open(Api, IntFunction)} with these options. */
    public static DeviceContext open(Api api, IntFunction<StreamHandle> streams, ContextOptions options) {
        return open(api, streams, options, new Releases());
    }

    /** {@link #open(Api, IntFunction)}, counting in {@code releases} what its backend is asked to release. */
    public static DeviceContext open(Api api, IntFunction<StreamHandle> streams, Releases releases) {
        return open(api, streams, ContextOptions.defaults(), releases);
    }

    /**
     * {@link #open(Api, IntFunction)} whose backend builds updatable graphs that do nothing (every update accepted), so
     * that repeated work replays instead of falling back.
     */
    public static DeviceContext openWithGraphs(Api api, IntFunction<StreamHandle> streams) {
        return openWithGraphs(api, streams, k -> { });
    }

    /** {@link #openWithGraphs(Api, IntFunction)}, telling {@code loads} of each kernel its backend is asked to load. */
    public static DeviceContext openWithGraphs(Api api, IntFunction<StreamHandle> streams, Consumer<Kernel> loads) {
        return open(api, streams, ContextOptions.defaults(), new Releases(), true, loads);
    }

    private static DeviceContext open(Api api, IntFunction<StreamHandle> streams, ContextOptions options, Releases releases) {
        return open(api, streams, options, releases, false, k -> { });
    }

    private static DeviceContext open(Api api, IntFunction<StreamHandle> streams, ContextOptions options, Releases releases,
            boolean graphs, Consumer<Kernel> loads) {
        int[] created = {0};
        ContextHandle handle = (ContextHandle) Proxy.newProxyInstance(FakeDevices.class.getClassLoader(),
                new Class<?>[] {ContextHandle.class}, (proxy, method, a) -> switch (method.getName()) {
                    case "defaultStream" -> streams.apply(0);
                    case "createStream" -> streams.apply(++created[0]);
                    case "attribute" -> throw new UnsupportedOnBackendException("no device attributes here");
                    case "allocate" -> memory((Long) a[0]);
                    case "name" -> "fake backend";
                    case "load" -> {
                        loads.accept((Kernel) a[0]);
                        yield new FunctionHandle() {
                            @Override
                            public Optional<String> assembly() {
                                return Optional.empty();
                            }

                            @Override
                            public void unload() {
                                releases.unloads.incrementAndGet();
                            }

                            @Override
                            public DeviceMemory global(String name) {
                                return memory(16); // a module variable of four 32-bit elements
                            }
                        };
                    }
                    case "streamPriorityRange" -> new PriorityRange(0, 0);
                    case "createEvent" -> event(releases.eventDestroys::incrementAndGet);
                    case "allocateHost" -> hostMemory(Arena.ofAuto().allocate((Long) a[0]), false);
                    case "registerHost" -> hostMemory((MemorySegment) a[0], true);
                    case "freeHost" -> {
                        releases.hostFrees.incrementAndGet();
                        yield null;
                    }
                    case "buildGraph" -> graphs ? new NoWorkGraph() : null;
                    default -> null;
                });
        try {
            Constructor<DeviceContext> c = DeviceContext.class.getDeclaredConstructor(String.class, int.class, ContextHandle.class,
                    ContextOptions.class);
            c.setAccessible(true);
            return c.newInstance(api.id(), 0, handle, options);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A graph that runs nothing and takes every update. */
    private static final class NoWorkGraph implements dev.sluice.spi.UpdatableGraph {
        @Override
        public boolean update(java.util.List<dev.sluice.spi.WorkStep> steps) {
            return true;
        }

        @Override
        public void launch(StreamHandle stream) {
        }

        @Override
        public void destroy() {
        }
    }

    /**
     * A backend's marker that is done while {@code done} says so; a marker of its own, unlike {@link Marker#DONE},
     * which stands for work that never reached a backend and which waits skip.
     */
    public static Marker marker(BooleanSupplier done) {
        return new Marker() {
            @Override
            public boolean isDone() {
                return done.getAsBoolean();
            }

            @Override
            public boolean awaitDone(long timeoutNanos) {
                return done.getAsBoolean();
            }

            @Override
            public void release() {
            }
        };
    }

    /** An event that is done at once, with no time between two; {@code onDestroy} runs at each destroy. */
    public static dev.sluice.spi.EventHandle event(Runnable onDestroy) {
        return new dev.sluice.spi.EventHandle() {
            @Override
            public boolean query() {
                return true;
            }

            @Override
            public void synchronize() {
            }

            @Override
            public float elapsedMillis(dev.sluice.spi.EventHandle end) {
                return 0;
            }

            @Override
            public void destroy() {
                onDestroy.run();
            }

            @Override
            public long nativeHandle() {
                return 0xE7E47;
            }
        };
    }

    public static HostMemory hostMemory(MemorySegment segment, boolean registered) {
        return new HostMemory() {
            @Override
            public MemorySegment segment() {
                return segment;
            }

            @Override
            public boolean registered() {
                return registered;
            }
        };
    }

    /** The next allocation's address: 1 MiB apart from the last, or more for a larger one. */
    private static final java.util.concurrent.atomic.AtomicLong NEXT_ADDRESS = new java.util.concurrent.atomic.AtomicLong(4096);

    public static DeviceMemory memory(long bytes) {
        long address = NEXT_ADDRESS.getAndAdd(Math.max(1 << 20, (bytes + 4095) & ~4095L));
        return new DeviceMemory() {
            @Override
            public long byteSize() {
                return bytes;
            }

            @Override
            public long address() {
                return address;
            }
        };
    }

    /**
     * How a test's log names a call of a fake backend stream: the method's name, or for a step handed to
     * {@link StreamHandle#enqueue} the name of the backend method that runs its kind ({@code "launch"}, {@code "fill"},
     * {@code "copyHostToDevice"}...).
     */
    public static String callName(java.lang.reflect.Method method, Object[] args) {
        if (!method.getName().equals("enqueue")) {
            return method.getName();
        }
        return switch ((dev.sluice.spi.WorkStep) args[0]) {
            case dev.sluice.spi.WorkStep.Launch _ -> "launch";
            case dev.sluice.spi.WorkStep.Fill _ -> "fill";
            case dev.sluice.spi.WorkStep.Upload _ -> "copyHostToDevice";
            case dev.sluice.spi.WorkStep.Download _ -> "copyDeviceToHost";
            case dev.sluice.spi.WorkStep.Copy _ -> "copyDeviceToDevice";
            case dev.sluice.spi.WorkStep.PeerCopy _ -> "copyPeer";
            case dev.sluice.spi.WorkStep.Upload2D _ -> "copyHostToDevice2D";
            case dev.sluice.spi.WorkStep.Download2D _ -> "copyDeviceToHost2D";
            case dev.sluice.spi.WorkStep.Copy2D _ -> "copyDeviceToDevice2D";
        };
    }
}
