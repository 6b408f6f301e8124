package dev.sluice.spi;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Whether the JDK lets a backend call native code, asked before the backend calls any restricted method.
 *
 * <p>The GPU backends load native libraries ({@code java.lang.foreign}, and JCuda's JNI library). The JDK allows
 * that silently only to modules named by {@code --enable-native-access} (or, in an executable jar, the manifest's
 * {@code Enable-Native-Access: ALL-UNNAMED}). For the others it depends on {@code --illegal-native-access}: JDK 25's
 * default {@code warn} prints a warning at the first native call of each module, {@code deny} throws
 * {@link IllegalCallerException}, {@code allow} says nothing. A backend whose modules lack native access therefore
 * reports itself unavailable without touching native code, with {@link #refusal} as the reason: a program that
 * runs on the CPU simulator prints no JDK warning, and the reason names the exact flag to add.
 */
public final class NativeAccess {

    /** The value of {@code --illegal-native-access} when the command line names none (JDK 24 to 25). */
    static final String DEFAULT_MODE = "warn";

    private NativeAccess() {
    }

    /**
     * Why the JDK would refuse or warn about native calls from the modules of {@code callers}, naming the flag to
     * add; {@code null} when every one of them may call native code silently (native access enabled for its module,
     * or {@code --illegal-native-access=allow}).
     *
     * @param backend the backend's name for the message, such as "CUDA"
     * @param callers one class of each module that calls restricted methods
     * @return the reason, or {@code null} when native access is granted
     */
    public static @Nullable String refusal(String backend, Class<?>... callers) {
        List<Module> refused = new ArrayList<>();
        for (Class<?> c : callers) {
            Module m = c.getModule();
            if (!m.isNativeAccessEnabled() && !refused.contains(m)) {
                refused.add(m);
            }
        }
        if (refused.isEmpty()) {
            return null;
        }
        String mode = illegalNativeAccessMode();
        if (mode.equals("allow")) {
            return null;
        }
        return describe(backend, refused, mode);
    }

    /** The message of {@link #refusal}, for the modules that lack native access under {@code mode}. */
    static String describe(String backend, List<Module> refused, String mode) {
        Set<String> values = new LinkedHashSet<>();
        List<String> names = new ArrayList<>();
        for (Module m : refused) {
            values.add(flagValue(m));
            names.add(m.isNamed() ? "module " + m.getName() : "code on the class path");
        }
        String flag = "--enable-native-access=" + String.join(",", values);
        String what = String.join(" and ", new LinkedHashSet<>(names));
        String verdict = mode.equals("deny")
                ? "the JDK refuses native access to " + what + " (--illegal-native-access=deny)"
                : "native access is not enabled for " + what + " (the JDK would print a warning at the first native"
                        + " call, --illegal-native-access=" + mode + ", and refuses it under deny), so the " + backend
                        + " backend did not load its native libraries";
        String jar = values.contains("ALL-UNNAMED")
                ? " (an executable jar: Enable-Native-Access: ALL-UNNAMED in its manifest)"
                : "";
        return verdict + ": run java with " + flag + jar;
    }

    /** The value {@code --enable-native-access} takes for {@code m}: its name, or ALL-UNNAMED for the class path. */
    static String flagValue(Module m) {
        return m.isNamed() ? m.getName() : "ALL-UNNAMED";
    }

    /**
     * The JVM's {@code --illegal-native-access} mode as the command line (including {@code JDK_JAVA_OPTIONS}) set
     * it, else {@value #DEFAULT_MODE}. Read through {@code java.management} when that module is present.
     */
    static String illegalNativeAccessMode() {
        String mode = DEFAULT_MODE;
        try {
            for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
                if (arg.startsWith("--illegal-native-access=")) {
                    mode = arg.substring("--illegal-native-access=".length()).trim();
                }
            }
        } catch (LinkageError | RuntimeException e) {
            // java.management absent from a module graph, or a restricted environment: assume the default
        }
        return mode;
    }
}
