package dev.sluice;

/**
 * Attributes of a compiled kernel ({@link DeviceFunction#attribute}, {@link DeviceFunction#setAttribute}): CUDA's
 * {@code CU_FUNC_ATTRIBUTE_*}, HIP's {@code HIP_FUNC_ATTRIBUTE_*}. Most are read-only facts the compiler decided;
 * two can be set (Mojo's {@code func_attribute}).
 */
public enum FunctionAttribute {
    /** The most threads a block of this kernel may have (registers and shared memory can make it less than the device's). */
    MAX_THREADS_PER_BLOCK("MAX_THREADS_PER_BLOCK", false),
    /** Bytes of statically declared shared memory per block. */
    STATIC_SHARED_MEMORY_BYTES("SHARED_SIZE_BYTES", false),
    /** Bytes of constant memory the kernel uses. */
    CONSTANT_MEMORY_BYTES("CONST_SIZE_BYTES", false),
    /** Bytes of local memory per thread (spills, local arrays). */
    LOCAL_MEMORY_BYTES("LOCAL_SIZE_BYTES", false),
    /** Registers per thread. */
    REGISTERS("NUM_REGS", false),
    /** The PTX virtual architecture it was compiled for, major × 10 + minor. */
    PTX_VERSION("PTX_VERSION", false),
    /** The binary architecture, major × 10 + minor. */
    BINARY_VERSION("BINARY_VERSION", false),
    /**
     * The most dynamic shared memory a launch may ask for, in bytes. Settable up to the device's opt-in limit; the
     * CUDA backend also raises it by itself when a launch asks for more than 48 KiB.
     */
    MAX_DYNAMIC_SHARED_MEMORY_BYTES("MAX_DYNAMIC_SHARED_SIZE_BYTES", true),
    /**
     * The preferred share of the unified L1/shared memory given to shared memory, in percent (0 to 100), or -1 for
     * the driver's default. A hint. Settable.
     */
    PREFERRED_SHARED_MEMORY_CARVEOUT("PREFERRED_SHARED_MEMORY_CARVEOUT", true);

    /** The driver's name without its prefix, as backends look it up. */
    final String driverName;
    final boolean settable;

    FunctionAttribute(String driverName, boolean settable) {
        this.driverName = driverName;
        this.settable = settable;
    }

    /** Whether {@link DeviceFunction#setAttribute} takes it. */
    public boolean isSettable() {
        return settable;
    }
}
