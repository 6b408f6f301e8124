package dev.sluice.kernel;

import dev.sluice.CompilationException;
import dev.sluice.JavaKernel;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.CodeBuilder;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.AccessFlag;
import java.util.function.Consumer;
import java.util.function.Function;

/** Defines generated {@link JavaKernel} classes: hidden classes of this package, so they may call {@link KernelMath}. */
final class Generated {

    static final ClassDesc KERNEL_THREAD = ClassDesc.of("dev.sluice.KernelThread");
    static final ClassDesc DIM = ClassDesc.of("dev.sluice.Dim");
    private static final ClassDesc JAVA_KERNEL = ClassDesc.of(JavaKernel.class.getName());

    private Generated() {
    }

    /**
     * A new {@link JavaKernel} whose {@code run(KernelThread)} is {@code body} (the thread is in slot 1).
     *
     * @param tooLarge the exception for source whose bytecode is over one of the JVM's limits of a method, from the
     *                 problem stated: the class-file API refuses such a method with an IllegalArgumentException
     */
    static JavaKernel kernel(String name, Consumer<CodeBuilder> body, Function<String, CompilationException> tooLarge) {
        ClassDesc self = ClassDesc.of(Generated.class.getPackageName() + ".GeneratedKernel_" + name);
        // Stack maps need the hierarchy of the types in frames; resolve ours through the loader that has them.
        ClassFile cf = ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(
                ClassHierarchyResolver.defaultResolver().orElse(
                        ClassHierarchyResolver.ofClassLoading(Generated.class.getClassLoader()))));
        byte[] bytes;
        try {
            bytes = cf.build(self, clb -> clb
                .withFlags(AccessFlag.FINAL, AccessFlag.SYNTHETIC)
                .withInterfaceSymbols(JAVA_KERNEL)
                .withMethodBody(ConstantDescs.INIT_NAME, ConstantDescs.MTD_void, ClassFile.ACC_PUBLIC, cb -> cb
                        .aload(0)
                        .invokespecial(ConstantDescs.CD_Object, ConstantDescs.INIT_NAME, ConstantDescs.MTD_void)
                        .return_())
                .withMethodBody("run", MethodTypeDesc.of(ConstantDescs.CD_void, KERNEL_THREAD), ClassFile.ACC_PUBLIC, body));
        } catch (IllegalArgumentException e) {
            String limit = limit(e);
            if (limit == null) { // not a limit the source went over: a defect of the generator, not of the source
                throw new IllegalStateException("generated Java for kernel " + name + " was refused: " + e, e);
            }
            throw tooLarge.apply(limit);
        }
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup().defineHiddenClass(bytes, true);
            return (JavaKernel) lookup.findConstructor(lookup.lookupClass(), MethodType.methodType(void.class)).invoke();
        } catch (Throwable e) {
            throw new IllegalStateException("generated Java for kernel " + name + " was refused: " + e, e);
        }
    }

    /**
     * The JVM limit the class-file API's refusal {@code e} is about, as a problem with the source; null where it is
     * about no such limit.
     */
    private static @org.jspecify.annotations.Nullable String limit(IllegalArgumentException e) {
        String what = String.valueOf(e.getMessage());
        String limit = what.startsWith("Code length") ? "the 64 KiB (65,535 bytes) of bytecode"
                : what.contains("slot") ? "the 65,535 local variable slots"
                : null;
        return limit == null ? null : "the generated Java bytecode is over " + limit + " the JVM allows one method;"
                + " split the work into several kernels, or use fewer statements and locals";
    }
}
