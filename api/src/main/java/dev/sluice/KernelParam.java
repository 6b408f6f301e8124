package dev.sluice;

import java.util.Objects;

/**
 * One declared kernel parameter: a pointer to device memory of an element type (a {@link DeviceBuffer}
 * is passed), or a scalar of a type (a Java {@link Number} or {@link Boolean} is passed).
 */
public record KernelParam(String name, boolean isPointer, DType type) {

    public KernelParam {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
    }

    /** A {@code T*} parameter: pass a {@link DeviceBuffer} of element type {@code type}. */
    public static KernelParam pointer(String name, DType type) {
        return new KernelParam(name, true, type);
    }

    /** A by-value parameter of C type {@code type.cName()}. */
    public static KernelParam scalar(String name, DType type) {
        return new KernelParam(name, false, type);
    }

    @Override
    public String toString() {
        return type.cName() + (isPointer ? "* " : " ") + name;
    }
}
