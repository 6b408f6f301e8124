package dev.sluice.kernel;

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

/** Defines generated {@link JavaKernel} classes: hidden classes of this package, so they may call {@link KernelMath}. */
final class Generated {

    static final ClassDesc KERNEL_THREAD = ClassDesc.of("dev.sluice.KernelThread");
    static final ClassDesc DIM = ClassDesc.of("dev.sluice.Dim");
    private static final ClassDesc JAVA_KERNEL = ClassDesc.of(JavaKernel.class.getName());

    private Generated() {
    }

    /** A new {@link JavaKernel} whose {@code run(KernelThread)} is {@code body} (the thread is in slot 1). */
    static JavaKernel kernel(String name, Consumer<CodeBuilder> body) {
        ClassDesc self = ClassDesc.of(Generated.class.getPackageName() + ".GeneratedKernel_" + name);
        // Stack maps need the hierarchy of the types in frames; resolve ours through the loader that has them.
        ClassFile cf = ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(
                ClassHierarchyResolver.defaultResolver().orElse(
                        ClassHierarchyResolver.ofClassLoading(Generated.class.getClassLoader()))));
        byte[] bytes = cf.build(self, clb -> clb
                .withFlags(AccessFlag.FINAL, AccessFlag.SYNTHETIC)
                .withInterfaceSymbols(JAVA_KERNEL)
                .withMethodBody(ConstantDescs.INIT_NAME, ConstantDescs.MTD_void, ClassFile.ACC_PUBLIC, cb -> cb
                        .aload(0)
                        .invokespecial(ConstantDescs.CD_Object, ConstantDescs.INIT_NAME, ConstantDescs.MTD_void)
                        .return_())
                .withMethodBody("run", MethodTypeDesc.of(ConstantDescs.CD_void, KERNEL_THREAD), ClassFile.ACC_PUBLIC, body));
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup().defineHiddenClass(bytes, true);
            return (JavaKernel) lookup.findConstructor(lookup.lookupClass(), MethodType.methodType(void.class)).invoke();
        } catch (Throwable e) {
            throw new IllegalStateException("generated Java for kernel " + name + " was refused: " + e, e);
        }
    }
}
