package dev.sluice;

/**
 * One declared kernel parameter: a pointer to device memory of an element type (a {@link DeviceBuffer}
 * is passed), or a scalar of a type (a Java {@link Number} or {@link Boolean} is passed).
 */
public record KernelParam(String name, boolean isPointer, DType type) {

    /**
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
