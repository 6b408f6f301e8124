package dev.sluice;

/**
 * One declared kernel parameter: a pointer to device memory of an element type (a {@link DeviceBuffer}
 * is passed), or a scalar of a type (a Java {@link Number} or {@link Boolean} is passed).
 */
public record KernelParam(String name, boolean isPointer, DType type) {

    /**
     * A parameter; {@link #pointer} and {@link #scalar} read better.
     *
     * @param name      the parameter's name in the kernel's source, a C identifier; error messages name it
     * @param isPointer whether a {@link DeviceBuffer} is passed (a {@code T*}) rather than a value
     * @param type      the element type a pointer points to, or the scalar's type
     * @throws InvalidArgumentException naming {@code name} for null or a name that is not a C identifier, naming
     *                                  {@code type} for null
     */
    public KernelParam {
        Checks.identifier("name", name);
        Checks.notNull("type", type);
    }

    /**
     * A {@code T*} parameter: pass a {@link DeviceBuffer} of element type {@code type}.
     *
     * @throws InvalidArgumentException as the constructor does
     */
    public static KernelParam pointer(String name, DType type) {
        return new KernelParam(name, true, type);
    }

    /**
     * A by-value parameter of C type {@code type.cName()}.
     *
     * @throws InvalidArgumentException as the constructor does
     */
    public static KernelParam scalar(String name, DType type) {
        return new KernelParam(name, false, type);
    }

    @Override
    public String toString() {
        return type.cName() + (isPointer ? "* " : " ") + name;
    }
}
