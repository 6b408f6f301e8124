/**
 * Sluice's API: the vocabulary and the handles users hold ({@code dev.sluice}), the interfaces a backend implements
 * ({@code dev.sluice.spi}) and the kit native backends share ({@code dev.sluice.spi.support}, for backend authors
 * only), and the kernel language ({@code dev.sluice.kernel}). The engine behind the handles ({@code dev.sluice.engine})
 * and the recorders of traces and Flight Recorder events ({@code dev.sluice.observe}) are internal: not exported, with
 * no compatibility promise. Backends are found with {@link java.util.ServiceLoader} as providers of
 * {@link dev.sluice.spi.Backend}.
 */
module dev.sluice {
    requires static transitive org.jspecify; // nullness annotations on the exported API
    requires static jdk.jfr; // Flight Recorder events, when the runtime has the recorder
    requires static java.management; // the JVM's input arguments, for native-access advice, when present

    exports dev.sluice;
    exports dev.sluice.spi;
    exports dev.sluice.spi.support;
    exports dev.sluice.kernel;

    uses dev.sluice.spi.Backend;
}
