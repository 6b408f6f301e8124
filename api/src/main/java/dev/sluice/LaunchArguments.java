package dev.sluice;

import java.util.List;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;

/**
 * The checks of a launch's arguments against its kernel's parameters ({@link DeviceStream#enqueueLaunch}), and the
 * values the engine launches: each argument read once, a buffer as the region of memory it views.
 */
final class LaunchArguments {

    /** The element count of a kernel's buffer argument, for its declared element counts. */
    private static final ToLongFunction<Object> ELEMENTS_OF = a -> ((DeviceBuffer) a).count();

    private LaunchArguments() {
    }

    /**
     * The values to launch for {@code arguments} (as many as {@code kernel}'s parameters, checked by the caller), each
     * checked against its parameter and the kernel's declared element counts.
     *
     * @throws InvalidArgumentException naming the parameter of the first argument refused
     */
    static Object[] checked(DeviceStream stream, Kernel kernel, Object[] arguments) {
        List<KernelParam> params = kernel.params();
        // Each argument is read once, into the copy that is both checked and launched: another thread may change the
        // caller's array, or a mutable Number, between a check and the launch, and a count checked small must not
        // launch large.
        Object[] values = arguments.clone();
        for (int i = 0; i < values.length; i++) {
            values[i] = checkArgument(stream, params.get(i), i, values[i]);
        }
        kernel.checkElementCounts(values, ELEMENTS_OF);
        for (int i = 0; i < values.length; i++) {
            if (values[i] instanceof DeviceBuffer b) {
                values[i] = b.region(); // the engine takes a buffer argument as the region of memory it views
            }
        }
        return values;
    }

    /**
     * Checks one launch argument and returns the value to launch: the argument itself, or for a number that can change
     * one reading of it ({@link DType#readOnce}). Builds no message unless it fails (this runs on every launch).
     */
    private static Object checkArgument(DeviceStream stream, KernelParam p, int index, @Nullable Object value) {
        if (value == null) {
            throw new InvalidArgumentException(argumentName(p, index), "must not be null");
        }
        if (p.isPointer()) {
            if (!(value instanceof DeviceBuffer b)) {
                throw new InvalidArgumentException(argumentName(p, index), "expects a DeviceBuffer of " + p.type() + " but got "
                        + value.getClass().getSimpleName() + " " + value);
            }
            if (b.isClosed() || b.context() != stream.context() || b.dtype() != p.type()) {
                String name = argumentName(p, index);
                stream.checkBuffer(name, b);
                Checks.sameType(name, p.type(), b.dtype());
            }
            long size = p.type().byteSize();
            if ((b.byteOffset() & (size - 1)) != 0) { // sizes are powers of two
                // A GPU faults on a load of an element at a misaligned address, and the fault ends the whole context.
                throw new InvalidArgumentException(argumentName(p, index), b + " starts at byte " + b.byteOffset()
                        + " of its memory, not a multiple of the " + size + " bytes of its elements, which the device"
                        + " cannot load there; copy the data to a buffer of its own");
            }
        } else if (value instanceof Boolean) {
            if (p.type().isFloatingPoint()) {
                throw new InvalidArgumentException(argumentName(p, index), "expects a " + p.type() + " but got a boolean");
            }
        } else if (value instanceof Number n) {
            try {
                Number once = p.type().readOnce("", n);
                p.type().bits("", once);
                return once;
            } catch (InvalidArgumentException e) { // named only now: the name is built for a refusal alone
                String problem = e.getMessage().substring(e.argument().length() + ": ".length());
                throw new InvalidArgumentException(argumentName(p, index), problem);
            }
        } else {
            throw new InvalidArgumentException(argumentName(p, index), "expects a number of type " + p.type() + " but got "
                    + value.getClass().getSimpleName() + " " + value);
        }
        return value;
    }

    private static String argumentName(KernelParam p, int index) {
        return Kernel.argumentName(p, index);
    }
}
