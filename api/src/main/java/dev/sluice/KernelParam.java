package dev.sluice;

/**
 * One declared kernel parameter: a pointer to device memory of an element type (a {@link DeviceBuffer}
 * is passed), or a scalar of a type (a Java {@link Number} or {@link Boolean} is passed).
 *
 * <p>A pointer declares what the kernel does to the memory ({@link Access}): automatic ordering across streams
 * ({@link ContextOptions#autoOrdering()}) makes a launch that only reads a buffer wait for other streams' last write of
 * it, and one that writes it wait for their reads and writes too. Declaring a read that the kernel in fact writes lets
 * two streams race; declaring a write that it only reads costs waits but is safe.
 *
 * @param name     the parameter's name, a C identifier
 * @param isPointer whether a {@link DeviceBuffer} is passed
 * @param type     the element type of a pointer, or the type of a scalar
 * @param access   for a pointer, what the kernel does to the memory; {@link Access#READ_WRITE} for scalars (unused)
 */
public record KernelParam(String name, boolean isPointer, DType type, Access access) {

    /** What a kernel does to the memory behind a pointer parameter. */
    public enum Access {
        /** Only reads: {@code const T*} in CUDA C++. Reads of one buffer on several streams never wait for each other. */
        READ,
        /** Only writes (every element it reads it wrote first). */
        WRITE,
        /** Reads and writes. */
        READ_WRITE;

        /** Whether the kernel may change the memory. */
        public boolean writes() {
            return this != READ;
        }
    }

    /**
     * A parameter; {@link #pointer} and {@link #scalar} read better.
     *
     * @param name      the parameter's name in the kernel's source, a C identifier; error messages name it
     * @param isPointer whether a {@link DeviceBuffer} is passed (a {@code T*}) rather than a value
     * @param type      the element type a pointer points to, or the scalar's type
     * @throws InvalidArgumentException naming {@code name} for null or a name that is not a C identifier, naming
     *                                  {@code type} or {@code access} for null
     */
    public KernelParam {
        Checks.identifier("name", name);
        Checks.notNull("type", type);
        Checks.notNull("access", access);
    }

    /**
     * A parameter that, if a pointer, reads and writes its memory (as {@link #pointer(String, DType)} declares).
     *
     * @throws InvalidArgumentException as the canonical constructor does
     */
    public KernelParam(String name, boolean isPointer, DType type) {
        this(name, isPointer, type, Access.READ_WRITE);
    }

    /**
     * A {@code T*} parameter that the kernel may read and write: pass a {@link DeviceBuffer} of element type
     * {@code type}. The safe default; {@link #input} and {@link #output} declare less and let more work overlap.
     *
     * @throws InvalidArgumentException as the constructor does
     */
    public static KernelParam pointer(String name, DType type) {
        return new KernelParam(name, true, type, Access.READ_WRITE);
    }

    /**
     * A pointer parameter with the given {@code access}.
     *
     * @throws InvalidArgumentException as the constructor does
     */
    public static KernelParam pointer(String name, DType type, Access access) {
        return new KernelParam(name, true, type, access);
    }

    /**
     * A {@code const T*} parameter that the kernel only reads.
     *
     * @throws InvalidArgumentException as the constructor does
     */
    public static KernelParam input(String name, DType type) {
        return new KernelParam(name, true, type, Access.READ);
    }

    /**
     * A {@code T*} parameter that the kernel only writes.
     *
     * @throws InvalidArgumentException as the constructor does
     */
    public static KernelParam output(String name, DType type) {
        return new KernelParam(name, true, type, Access.WRITE);
    }

    /**
     * A by-value parameter of C type {@code type.cName()}.
     *
     * @throws InvalidArgumentException as the constructor does
     */
    public static KernelParam scalar(String name, DType type) {
        return new KernelParam(name, false, type, Access.READ_WRITE);
    }

    /** The C declaration: {@code const float* x} for a read-only pointer, {@code float* x}, {@code long long n}. */
    @Override
    public String toString() {
        return (isPointer && access == Access.READ ? "const " : "") + type.cName() + (isPointer ? "* " : " ") + name;
    }
}
