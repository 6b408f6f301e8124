package dev.sluice.hip;

import dev.sluice.InvalidArgumentException;
import dev.sluice.spi.DeviceMemory;
import dev.sluice.spi.FunctionHandle;
import dev.sluice.spi.support.DeviceAllocation;
import java.util.Locale;
import java.util.Optional;

/**
 * A loaded code object ({@code hipModuleLoadData}) and the one kernel of it Sluice launches
 * ({@code hipModuleGetFunction}). Shared by every context of its device: HIP has one context per device, so
 * a module loaded once serves them all, and the backend keeps it loaded ({@link HipBackend#module}) until the
 * device is reset. {@link #unload()} therefore does nothing.
 */
final class HipModule implements FunctionHandle {

    private final HipApi api;
    final int device;
    final long module;
    final long function;
    final String name;

    HipModule(HipApi api, int device, long module, long function, String name) {
        this.api = api;
        this.device = device;
        this.module = module;
        this.function = function;
        this.name = name;
    }

    /** HIP code objects are machine code; there is no assembly text to show. */
    @Override
    public Optional<String> assembly() {
        return Optional.empty();
    }

    /**
     * {@code hipFuncGetAttribute}: "maxThreadsPerBlock", "sharedSizeBytes", "constSizeBytes", "localSizeBytes",
     * "numRegs" (or "registers"), "ptxVersion", "binaryVersion", "maxDynamicSharedSizeBytes"; -1 for other names.
     */
    @Override
    public long attribute(String attributeName) {
        int a = switch (attributeName.toLowerCase(Locale.ROOT).replace("_", "")) {
            case "maxthreadsperblock" -> HipApiConstants.HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK;
            case "sharedsizebytes", "staticsharedmemory" -> HipApiConstants.HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES;
            case "constsizebytes" -> HipApiConstants.HIP_FUNC_ATTRIBUTE_CONST_SIZE_BYTES;
            case "localsizebytes" -> HipApiConstants.HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES;
            case "numregs", "registers" -> HipApiConstants.HIP_FUNC_ATTRIBUTE_NUM_REGS;
            case "ptxversion" -> HipApiConstants.HIP_FUNC_ATTRIBUTE_PTX_VERSION;
            case "binaryversion" -> HipApiConstants.HIP_FUNC_ATTRIBUTE_BINARY_VERSION;
            case "maxdynamicsharedsizebytes" -> HipApiConstants.HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
            default -> -1;
        };
        if (a < 0) {
            return UNKNOWN;
        }
        return api.funcGetAttribute(a, function);
    }

    /**
     * {@code hipModuleGetGlobal}. The module is shared by the device's contexts (class comment), and so are its
     * variables.
     */
    @Override
    public DeviceMemory global(String variable) {
        api.setDevice(device);
        long[] found = new long[2];
        int r = api.moduleGetGlobal(module, variable, found);
        if (r == HipApiConstants.hipErrorNotFound) {
            throw new InvalidArgumentException("name", "\"" + variable + "\": the module of " + name + " has no variable"
                    + " of that name (declare it __constant__ or __device__ at global namespace scope, where C++ leaves"
                    + " names unmangled)");
        }
        api.check(r, "hipModuleGetGlobal(" + variable + ")");
        return DeviceAllocation.moduleVariable(found[0], found[1], device);
    }

    /** Kept loaded for the device's other contexts and later loads of the same code; see the class comment. */
    @Override
    public void unload() {
    }

    @Override
    public String toString() {
        return "HipModule[" + name + "]";
    }
}
