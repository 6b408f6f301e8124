package dev.sluice.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.DeviceStream;
import dev.sluice.SyncStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The blocking ({@link SyncStream}) and reactive ({@link ReactiveStream}) façades stand for {@link DeviceStream}'s
 * operations one to one: the same copies (host data and device buffer combinations) and, apart from the exceptions
 * recorded here with their reason, every other enqueue and wait. Read by reflection, so that an operation added to the
 * stream and not to a façade, or a copy overload added to one façade only, fails here.
 */
class FacadeCoverageTest {

    /**
     * Operations of {@link DeviceStream} that {@link SyncStream} leaves out on purpose, each with the reason; the test
     * also fails if one of them appears there, so the list cannot go stale.
     */
    private static final Map<String, String> LEFT_OUT_OF_SYNC = Map.of(
            "marker()", "DeviceStream.synchronize() is the blocking marker: it returns once everything enqueued so far has finished",
            "waitFor(DeviceEvent)", "a blocking caller waits on the host: DeviceEvent.synchronize()",
            "waitFor(DeviceFuture)", "a blocking caller waits on the host: DeviceFuture.join()",
            "waitFor(DeviceStream)", "a blocking caller waits on the host: DeviceStream.synchronize() of the other stream",
            "waitFor(CompletionStage)", "a blocking caller waits on the host: CompletionStage.toCompletableFuture().join()");

    @Test
    void syncAndReactiveCopyExactlyWhatTheStreamCopies() {
        Set<String> stream = signatures(DeviceStream.class, "enqueueCopy");
        assertEquals(Set.of("(DeviceBuffer,DeviceBuffer)", "(DeviceBuffer,HostData)", "(HostData,DeviceBuffer)"), stream,
                "the stream's copies: host data to device, device to host data, device to device");
        assertEquals(stream, signatures(SyncStream.class, "copy"), "SyncStream.copy");
        assertEquals(stream, signatures(ReactiveStream.class, "copy"), "ReactiveStream.copy");
    }

    @Test
    void syncAndReactiveCopyRectanglesExactlyAsTheStreamDoes() {
        Set<String> stream = signatures(DeviceStream.class, "enqueueCopy2D");
        assertEquals(Set.of("(DeviceBuffer,long,DeviceBuffer,long,long,long)", "(DeviceBuffer,long,HostData,long,long,long)",
                "(HostData,long,DeviceBuffer,long,long,long)"), stream,
                "the stream's 2-D copies: host data to device, device to host data, device to device");
        assertEquals(stream, signatures(SyncStream.class, "copy2D"), "SyncStream.copy2D");
        assertEquals(stream, signatures(ReactiveStream.class, "copy2D"), "ReactiveStream.copy2D");
    }

    @Test
    void reactiveOffersEveryOtherOperationOfTheStream() {
        Set<String> missing = new TreeSet<>(streamOperations());
        missing.removeAll(operations(ReactiveStream.class));
        assertEquals(Set.of(), missing, "DeviceStream operations without a ReactiveStream method of the same arguments");
    }

    @Test
    void syncOffersEveryOtherOperationOfTheStreamButTheHostWaits() {
        Set<String> offered = operations(SyncStream.class);
        Set<String> missing = new TreeSet<>(streamOperations());
        missing.removeAll(offered);
        assertEquals(new TreeSet<>(LEFT_OUT_OF_SYNC.keySet()), missing,
                "DeviceStream operations without a SyncStream method, other than those left out on purpose: " + LEFT_OUT_OF_SYNC);
        for (String leftOut : LEFT_OUT_OF_SYNC.keySet()) {
            assertTrue(streamOperations().contains(leftOut), leftOut + " is no longer a DeviceStream operation");
        }
    }

    /** DeviceStream's operations other than copies, named as the façades name them: enqueueFill is fill, enqueueMarker marker. */
    private static Set<String> streamOperations() {
        Set<String> out = new TreeSet<>();
        for (Method m : publicMethods(DeviceStream.class)) {
            String name = m.getName();
            if (name.equals("enqueueCopy") || name.equals("enqueueCopy2D")) {
                continue;
            }
            if (name.startsWith("enqueue")) {
                String rest = name.substring("enqueue".length());
                out.add(Character.toLowerCase(rest.charAt(0)) + rest.substring(1) + parameters(m));
            } else if (name.equals("waitFor")) {
                out.add(name + parameters(m));
            }
        }
        return out;
    }

    /** A façade's methods other than copies, as {@code name(Type,...)}. */
    private static Set<String> operations(Class<?> facade) {
        return publicMethods(facade).stream().filter(m -> !m.getName().equals("copy") && !m.getName().equals("copy2D"))
                .map(m -> m.getName() + parameters(m)).collect(Collectors.toCollection(TreeSet::new));
    }

    /** The parameter lists of {@code type}'s public, non-deprecated instance methods called {@code name}. */
    private static Set<String> signatures(Class<?> type, String name) {
        return publicMethods(type).stream().filter(m -> m.getName().equals(name)).map(FacadeCoverageTest::parameters)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static java.util.List<Method> publicMethods(Class<?> type) {
        return Arrays.stream(type.getDeclaredMethods())
                .filter(m -> Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers()))
                .filter(m -> !m.isAnnotationPresent(Deprecated.class) && !m.isSynthetic())
                .toList();
    }

    private static String parameters(Method m) {
        return Arrays.stream(m.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(",", "(", ")"));
    }
}
