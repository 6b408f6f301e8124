package dev.sluice.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.junit.jupiter.api.Test;

/** The downcall timer on handles of the downcalls' shape, {@code (...)int}: no driver needed. */
class CuCallTimesTest {

    static int twice(long a, int b) {
        return (int) a * 2 + b;
    }

    static int refuse(long a) {
        throw new IllegalStateException("refused " + a);
    }

    private static MethodHandle handle(String name, MethodType type) throws ReflectiveOperationException {
        return MethodHandles.lookup().findStatic(CuCallTimesTest.class, name, type);
    }

    @Test
    void aTimedHandleKeepsItsTypeAndResultsAndCountsEachCallEvenWhenItThrows() throws Throwable {
        MethodHandle plain = handle("twice", MethodType.methodType(int.class, long.class, int.class));
        MethodHandle timed = CuCallTimes.timed("testTwice", plain);
        assertEquals(plain.type(), timed.type());
        assertEquals(7, (int) timed.invokeExact(3L, 1));
        assertEquals(9, (int) timed.invokeExact(4L, 1));
        MethodHandle refusing = CuCallTimes.timed("testRefuse", handle("refuse", MethodType.methodType(int.class, long.class)));
        assertThrows(IllegalStateException.class, () -> {
            int unused = (int) refusing.invokeExact(5L);
        });
        String report = CuCallTimes.report();
        assertTrue(report.lines().anyMatch(l -> l.matches("downcall testTwice +2 .*")), report);
        assertTrue(report.lines().anyMatch(l -> l.matches("downcall testRefuse +1 .*")), report);
    }

    @Test
    void offByDefaultTheHandleIsReturnedAsItIs() throws ReflectiveOperationException {
        MethodHandle plain = handle("twice", MethodType.methodType(int.class, long.class, int.class));
        if (!CuCallTimes.ON) {
            assertSame(plain, CuCallTimes.wrap("testOff", plain));
        }
    }
}
