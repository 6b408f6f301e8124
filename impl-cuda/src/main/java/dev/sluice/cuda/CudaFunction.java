package dev.sluice.cuda;

import dev.sluice.InvalidArgumentException;
import dev.sluice.UnsupportedOnBackendException;
import dev.sluice.spi.DeviceMemory;
import dev.sluice.spi.FunctionHandle;
import dev.sluice.spi.support.DeviceAllocation;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A kernel loaded on one context: its module and {@code CUfunction}. The PTX (Mojo's {@code dump_asm}) is
 * produced on first request when the module was built from a cubin.
 */
final class CudaFunction implements FunctionHandle {

    private static final int MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
    private static final int PREFERRED_SHARED_MEMORY_CARVEOUT = 9;

    final CudaContext context;
    final String name;
    final long module;
    final long function;
    private final Supplier<@Nullable String> assembly;
    private volatile @Nullable String ptx;
    /** Largest dynamic shared memory opted in to with cuFuncSetAttribute; launches above 48 KiB need it. */
    private volatile int sharedOptIn = 48 * 1024;
    private volatile boolean unloaded;

    CudaFunction(CudaContext context, String name, long module, long function, Supplier<@Nullable String> assembly) {
        this.context = context;
        this.name = name;
        this.module = module;
        this.function = function;
        this.assembly = assembly;
    }

    /** Opts in to {@code bytes} of dynamic shared memory if more than what was opted in to so far. The context is bound. */
    void ensureDynamicShared(int bytes) {
        if (bytes > sharedOptIn) {
            synchronized (this) {
                if (bytes > sharedOptIn) {
                    Cu.check(Cu.funcSetAttribute(function, MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes),
                            "cuFuncSetAttribute(" + name + ", MAX_DYNAMIC_SHARED_SIZE_BYTES, " + bytes + ")");
                    sharedOptIn = bytes;
                }
            }
        }
    }

    /** {@code cuModuleGetGlobal} on this function's module (each compile loads a module of its own). */
    @Override
    public DeviceMemory global(String variable) {
        context.cu.bind();
        long[] found = new long[2];
        int r = Cu.moduleGetGlobal(module, variable, found);
        if (r == Cu.ERROR_NOT_FOUND) {
            throw new InvalidArgumentException("name", "\"" + variable + "\": the module of " + this.name + " has no"
                    + " variable of that name (declare it __constant__ or __device__ at global namespace scope, where C++"
                    + " leaves names unmangled)");
        }
        Cu.check(r, "cuModuleGetGlobal(" + variable + ")");
        return DeviceAllocation.moduleVariable(found[0], found[1], context.cu.ordinal);
    }

    /** {@code cuFuncSetAttribute}; a lower dynamic-shared-memory limit is kept too, and later launches above it raise it again. */
    @Override
    public void setAttribute(String attribute, int value) {
        int id = switch (attribute) {
            case "MAX_DYNAMIC_SHARED_SIZE_BYTES" -> MAX_DYNAMIC_SHARED_SIZE_BYTES;
            case "PREFERRED_SHARED_MEMORY_CARVEOUT" -> PREFERRED_SHARED_MEMORY_CARVEOUT;
            default -> throw new UnsupportedOnBackendException("setting the function attribute " + attribute + " on CUDA");
        };
        context.cu.bind();
        synchronized (this) {
            Cu.check(Cu.funcSetAttribute(function, id, value), "cuFuncSetAttribute(" + name + ", " + attribute + ", " + value + ")");
            if (id == MAX_DYNAMIC_SHARED_SIZE_BYTES) {
                sharedOptIn = Math.max(value, 48 * 1024);
            }
        }
    }

    @Override
    public Optional<String> assembly() {
        String p = ptx;
        if (p == null) {
            synchronized (this) {
                p = ptx;
                if (p == null) {
                    p = assembly.get();
                    ptx = p;
                }
            }
        }
        return Optional.ofNullable(p);
    }

    /**
     * {@code CU_FUNC_ATTRIBUTE_*} by name, with or without the prefix, any case: {@code NUM_REGS},
     * {@code MAX_THREADS_PER_BLOCK}, {@code SHARED_SIZE_BYTES}, {@code CONST_SIZE_BYTES}, {@code LOCAL_SIZE_BYTES},
     * {@code PTX_VERSION}, {@code BINARY_VERSION}, {@code MAX_DYNAMIC_SHARED_SIZE_BYTES}; also {@code registers}.
     */
    @Override
    public long attribute(String attributeName) {
        String n = attributeName.toUpperCase(Locale.ROOT).replace("CU_FUNC_ATTRIBUTE_", "");
        int id = switch (n) {
            case "MAX_THREADS_PER_BLOCK" -> 0;
            case "SHARED_SIZE_BYTES" -> 1;
            case "CONST_SIZE_BYTES" -> 2;
            case "LOCAL_SIZE_BYTES" -> 3;
            case "NUM_REGS", "REGISTERS" -> 4;
            case "PTX_VERSION" -> 5;
            case "BINARY_VERSION" -> 6;
            case "CACHE_MODE_CA" -> 7;
            case "MAX_DYNAMIC_SHARED_SIZE_BYTES" -> MAX_DYNAMIC_SHARED_SIZE_BYTES;
            case "PREFERRED_SHARED_MEMORY_CARVEOUT" -> PREFERRED_SHARED_MEMORY_CARVEOUT;
            default -> -1;
        };
        if (id < 0 || unloaded) {
            return UNKNOWN;
        }
        context.cu.bind();
        return Cu.funcGetAttribute(id, function);
    }

    /**
     * Launches already enqueued still run, so the module is unloaded when the context closes, not here: the
     * driver would otherwise have to wait for them, and that wait could hang on a stream held by a host gate.
     */
    @Override
    public void unload() {
        unloaded = true;
    }

    @Override
    public String toString() {
        return "CudaFunction[" + name + "]";
    }
}
