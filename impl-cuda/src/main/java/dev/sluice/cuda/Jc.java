package dev.sluice.cuda;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import jcuda.NativePointerObject;

/**
 * Bindings layer, JCuda side: JCuda (exceptions off, so every call returns its {@code CUresult}) covers the breadth of
 * the driver API, and this class turns its handle objects into the native addresses that {@link Cu}'s
 * {@code java.lang.foreign} calls take. {@code NativePointerObject.getNativePointer()} is protected; it is
 * looked up once with a private lookup (JCuda sits in the unnamed module, which opens every package).
 */
final class Jc {

    private static final MethodHandle NATIVE_POINTER;

    static {
        try {
            NATIVE_POINTER = MethodHandles.privateLookupIn(NativePointerObject.class, MethodHandles.lookup())
                    .findVirtual(NativePointerObject.class, "getNativePointer", MethodType.methodType(long.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private Jc() {
    }

    /** The native handle (CUstream, CUevent, CUcontext...) behind a JCuda object. */
    static long address(NativePointerObject handle) {
        try {
            return (long) NATIVE_POINTER.invokeExact(handle);
        } catch (Throwable t) {
            throw Cu.fatal(t);
        }
    }

    /** Checks a JCuda call's {@code CUresult}. */
    static void check(int result, String call) {
        Cu.check(result, call);
    }
}
