package dev.sluice;

import dev.sluice.engine.Allocation;
import dev.sluice.engine.LeakDetector;
import dev.sluice.engine.OwnedHandle;
import dev.sluice.spi.DeviceMemory;
import dev.sluice.spi.FunctionHandle;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A {@link Kernel} compiled and loaded on one context, ready to launch with
 * {@link DeviceStream#enqueueLaunch}. Thread-safe; launch it from any stream of its context, any number of
 * times. What the compiler decided about it ({@link #attribute}) and the variables of its code
 * ({@link #global}) go with it. {@link #close()} unloads it; launches already enqueued still run. Every method,
 * {@link #close()} included, may be called from any thread at the same time as any other; after {@link #close()} they
 * throw {@link ClosedResourceException}, except {@link #close()}, {@link #context()}, {@link #kernel()} and
 * {@link #assembly()}.
 *
 * <p><b>Resources:</b> closing the context unloads the functions it still owns. A function that became unreachable
 * while open is unloaded by the leak detector (property {@code sluice.leakDetection}) and reported as a leak; a
 * launch keeps it reachable until the device has finished the launch, a graph that captured one keeps it as long as
 * the graph and its replays, and every view {@link #global} handed out keeps it while the view is reachable.
 */
public final class DeviceFunction implements AutoCloseable, Kernel.Loaded {

    private final DeviceContext context;
    private final Kernel kernel;
    final FunctionHandle handle;
    /** What traces and listeners call a launch of it: {@code "kernel <name>"}. */
    private final String traceKind;
    /** The module variables handed out, closed with this function. */
    private final List<Allocation> globals;
    /** The loaded kernel as the context owns it: registered with the context in this function's place. */
    final OwnedHandle owned;
    /** The registration with the leak detector; cleaned by {@link #close()}. */
    private final Cleaner.Cleanable cleanable;

    DeviceFunction(DeviceContext context, Kernel kernel, FunctionHandle handle) {
        List<Allocation> variables = new CopyOnWriteArrayList<>();
        OwnedHandle o = context.core.own(() -> {
            for (Allocation a : variables) {
                a.close(); // its views now refuse new use; what is already enqueued still runs
            }
            handle.unload();
        });
        this.context = context;
        this.kernel = kernel;
        this.handle = handle;
        this.traceKind = TraceSpan.KERNEL + " " + kernel.name();
        this.globals = variables;
        this.owned = o;
        this.cleanable = LeakDetector.watch(this, o.closedFlag(),
                () -> "DeviceFunction[" + kernel.name() + " on " + context.backendName() + ":" + context.id() + "]",
                o::releaseLeaked);
    }

    /** What traces and listeners call a launch of it. */
    String traceKind() {
        return traceKind;
    }

    /** The context the kernel was loaded on; only its streams may launch it. Readable after close. */
    public DeviceContext context() {
        return context;
    }

    /** The kernel this function was compiled from: its name, source and parameter types. Readable after close. */
    @Override
    public Kernel kernel() {
        return kernel;
    }

    /** The compiled assembly (PTX on CUDA when compiled from source), where the backend has it: Mojo's {@code dump_asm}. */
    public Optional<String> assembly() {
        return handle.assembly();
    }

    /**
     * What the backend reports for {@code attribute} of this compiled kernel (registers, local memory, the most threads
     * per block...), like Numba's {@code get_regs_per_thread()} family.
     *
     * @throws UnsupportedOnBackendException where the backend does not report it (the CPU simulator reports none)
     */
    public long attribute(FunctionAttribute attribute) {
        Checks.notNull("attribute", attribute);
        checkUsableOn(context);
        long v;
        try {
            v = handle.attribute(attribute.driverName);
        } finally {
            Reference.reachabilityFence(this); // not unloaded by the leak detector under the call
        }
        if (v == FunctionHandle.UNKNOWN) {
            throw new UnsupportedOnBackendException("the function attribute " + attribute + " on " + context.backendName());
        }
        return v;
    }

    /**
     * Sets a settable attribute (Mojo's {@code func_attribute}): {@link FunctionAttribute#MAX_DYNAMIC_SHARED_MEMORY_BYTES}
     * from 0 to the device's opt-in limit of shared memory per block, or
     * {@link FunctionAttribute#PREFERRED_SHARED_MEMORY_CARVEOUT} from 0 to 100 percent, or -1 for the default. It applies
     * to launches enqueued afterwards. The CPU simulator accepts and ignores both (its Java kernels have no shared
     * memory configuration).
     *
     * @throws InvalidArgumentException      naming {@code attribute} if it is read-only, or {@code value} if out of range
     * @throws UnsupportedOnBackendException on HIP, whose attribute setter takes host kernel symbols, not loaded modules
     */
    public void setAttribute(FunctionAttribute attribute, int value) {
        Checks.notNull("attribute", attribute);
        checkUsableOn(context);
        if (!attribute.settable) {
            throw new InvalidArgumentException("attribute", attribute + " is read-only (the compiler decides it)");
        }
        if (attribute == FunctionAttribute.MAX_DYNAMIC_SHARED_MEMORY_BYTES) {
            long limit = context.limits().maxSharedMemoryOptIn();
            if (value < 0 || value > limit) {
                throw new InvalidArgumentException("value", "value " + value + " for " + attribute + " is outside 0 to "
                        + limit + " bytes, the device's opt-in limit of shared memory per block");
            }
        } else if (value < -1 || value > 100) {
            throw new InvalidArgumentException("value", "value " + value + " for " + attribute
                    + " is outside 0 to 100 percent (or -1 for the driver's default)");
        }
        try {
            handle.setAttribute(attribute.driverName, value);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * The module-scope variable {@code name} of this kernel's code — a {@code __constant__} or {@code __device__}
     * array or scalar declared at global namespace scope of its CUDA C++ source (or of its PTX, cubin or fatbin) — as
     * a buffer of {@code type}, for ordinary copies into it before launches read it (Mojo's {@code constant_memory},
     * Numba's {@code cuda.const.array_like}). Copies into it are stream-ordered like any other: a launch enqueued
     * after the copy, on its stream or after a wait for it, reads the new values; a launch already running may see
     * either.
     *
     * <p>The buffer owns nothing ({@code close()} does nothing); it can be used until this function, or its context,
     * is closed. On CUDA each {@link DeviceContext#compile} loads a module of its own, so each function has its own
     * variables; on HIP the contexts of a device share one module per kernel, and so its variables.
     *
     * @throws InvalidArgumentException      naming {@code name} if the code has no variable of that name, or
     *                                       {@code type} if its size is not a whole number of {@code type} elements
     * @throws UnsupportedOnBackendException on the CPU simulator: Java kernels have no module variables (pass the
     *                                       values in a buffer argument)
     */
    public DeviceBuffer global(String name, DType type) {
        Checks.notNull("name", name);
        Checks.notNull("type", type);
        checkUsableOn(context);
        context.checkUsable();
        DeviceMemory memory = handle.global(name);
        if (memory.byteSize() % type.byteSize() != 0 || memory.byteSize() == 0) {
            throw new InvalidArgumentException("type", "variable \"" + name + "\" of " + kernel.name() + " has "
                    + memory.byteSize() + " bytes, not a whole number of " + type + " elements of " + type.byteSize()
                    + " bytes");
        }
        Allocation a = context.core.variable(memory);
        DeviceBuffer view = new DeviceBuffer(context, a, type, memory.byteSize() / type.byteSize(), this);
        globals.add(a);
        // A copy enqueued on the view keeps neither the view nor this function reachable: unloading the module when
        // the function is dropped could free the variable under it. The leak detector leaves it to the context's close.
        owned.handOut("a module variable of it was handed out (global), which enqueued copies may still use");
        if (owned.isClosed()) {
            a.close(); // closed meanwhile: the view must not outlive the function
            throw new ClosedResourceException(toString());
        }
        return view;
    }

    void checkUsableOn(DeviceContext c) {
        if (owned.isClosed()) {
            throw new ClosedResourceException(toString());
        }
        if (c != context) {
            throw new InvalidArgumentException("function", this + " was compiled for another context than " + c);
        }
    }

    /** Whether {@link #close()} was called (or the context closed it). */
    public boolean isClosed() {
        return owned.isClosed();
    }

    /**
     * Unloads the function; launches already enqueued still run, and the views {@link #global} handed out refuse new
     * use. Idempotent and safe from any thread, at the same time as any other call: of concurrent callers exactly one
     * unloads it, and none waits for the device.
     */
    @Override
    public void close() {
        if (owned.close()) {
            cleanable.clean(); // unregisters from the leak detector; its action sees the function closed
        }
    }

    @Override
    public String toString() {
        return "DeviceFunction[" + kernel.name() + " on " + context.backendName() + ":" + context.id() + "]";
    }
}
