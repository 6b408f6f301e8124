package dev.sluice.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.reactive.SluiceBlockHoundIntegration.Inside;
import dev.sluice.reactive.SluiceBlockHoundIntegration.Method;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every method the BlockHound integration names exists under that name (and, for a blocking one, that descriptor):
 * BlockHound finds them by their names as strings when it instruments a class, so a method renamed or moved would leave
 * its entry naming nothing, and the check it stood for would be gone without a word. Most of them are the engine's
 * internal methods, which change with it.
 */
class BlockHoundNamesTest {

    @Test
    void everyMethodTheIntegrationNamesExists() {
        List<Method> named = Stream.concat(SluiceBlockHoundIntegration.BLOCKING.stream(),
                SluiceBlockHoundIntegration.ON_COMPLETION_THREADS.stream().map(Inside::method)).toList();
        assertEquals(17, named.size(), "the integration names its methods in the two lists: " + named);
        assertEquals(List.of(), missing(named), "methods the BlockHound integration names that do not exist:"
                + " rename them in SluiceBlockHoundIntegration too");
    }

    @Test
    void aMethodThatDoesNotExistIsReportedByItsClassAndName() {
        List<String> found = missing(List.of(
                new Method("dev.sluice.engine.StreamOrder", "lockk", ""),
                new Method("dev.sluice.engine.StreamCores", "lock", ""),
                new Method("dev.sluice.DeviceStream", "synchronize", "()J")));
        assertEquals(3, found.size(), found.toString());
        assertTrue(found.get(0).startsWith("dev.sluice.engine.StreamOrder.lockk: "), found.get(0));
        assertTrue(found.get(1).startsWith("dev.sluice.engine.StreamCores.lock: "), found.get(1));
        assertTrue(found.get(2).contains("()J") && found.get(2).contains("()V"), found.get(2));
    }

    /** What is wrong with each of {@code methods} that names no method: its class and name, and why. */
    static List<String> missing(List<Method> methods) {
        List<String> problems = new ArrayList<>();
        for (Method m : methods) {
            Class<?> c;
            try {
                c = Class.forName(m.className(), false, BlockHoundNamesTest.class.getClassLoader());
            } catch (ClassNotFoundException e) {
                problems.add(m.className() + "." + m.name() + ": no class " + m.className());
                continue;
            }
            List<String> descriptors = new ArrayList<>();
            for (java.lang.reflect.Method d : c.getDeclaredMethods()) {
                if (d.getName().equals(m.name())) {
                    descriptors.add(MethodType.methodType(d.getReturnType(), d.getParameterTypes()).toMethodDescriptorString());
                }
            }
            if (descriptors.isEmpty()) {
                problems.add(m.className() + "." + m.name() + ": " + m.className() + " declares no method " + m.name());
            } else if (!m.descriptor().isEmpty() && !descriptors.contains(m.descriptor())) {
                problems.add(m.className() + "." + m.name() + ": no method of descriptor " + m.descriptor() + ", only "
                        + descriptors);
            }
        }
        return problems;
    }
}
