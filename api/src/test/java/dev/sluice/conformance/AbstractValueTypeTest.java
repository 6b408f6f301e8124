package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.Api;
import dev.sluice.ContextFlag;
import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceStream;
import dev.sluice.Dim;
import dev.sluice.HostWaits;
import dev.sluice.InvalidArgumentException;
import dev.sluice.JavaKernel;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchAttribute;
import dev.sluice.LaunchConfig;
import dev.sluice.StreamOptions;
import dev.sluice.TraceSpan;
import dev.sluice.WaitStrategy;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The public value types and their factories ({@link Kernel}, {@link KernelParam}, {@link LaunchConfig}, {@link Dim},
 * {@link ContextOptions}, {@link StreamOptions}, {@link DType}) refuse bad input as the rest of the API does: with an
 * {@link InvalidArgumentException} naming the argument, never a {@link NullPointerException} or a silently wrong value.
 */
public abstract class AbstractValueTypeTest extends ConformanceBase {

    // ---------------------------------------------------------------- null, everywhere

    /** A valid value of each parameter type the value types' public methods take. */
    private static final Map<Class<?>, Supplier<Object>> SAMPLES = Map.ofEntries(
            Map.entry(String.class, () -> "k"),
            Map.entry(int.class, () -> 1),
            Map.entry(long.class, () -> 1L),
            Map.entry(boolean.class, () -> false),
            Map.entry(Number.class, () -> 1),
            Map.entry(Object.class, () -> "k"),
            Map.entry(Dim.class, () -> Dim.of(1)),
            Map.entry(DType.class, () -> DType.I32),
            Map.entry(KernelParam.class, () -> KernelParam.scalar("p", DType.I32)),
            Map.entry(KernelParam.Access.class, () -> KernelParam.Access.READ),
            Map.entry(KernelParam[].class, () -> new KernelParam[] {KernelParam.scalar("q", DType.I32)}),
            Map.entry(byte[].class, () -> new byte[] {1}),
            Map.entry(String[].class, () -> new String[] {"p"}),
            Map.entry(JavaKernel.class, () -> (JavaKernel) t -> { }),
            Map.entry(Kernel.Fusion.class, () -> new Kernel.Fusion() {
                @Override
                public boolean overwrites(int output, int[] aliases) {
                    return false;
                }

                @Override
                public Kernel fuse(List<Kernel.Fusion> launches, int[][] sources) {
                    throw new UnsupportedOperationException("a sample: fuses nothing");
                }
            }),
            Map.entry(LaunchAttribute[].class, () -> new LaunchAttribute[] {new LaunchAttribute.Priority(0)}),
            Map.entry(List.class, () -> List.of()),
            Map.entry(Set.class, () -> Set.of()),
            Map.entry(ContextFlag[].class, () -> new ContextFlag[] {ContextFlag.SCHEDULE_SPIN}),
            Map.entry(WaitStrategy.class, () -> WaitStrategy.PARK),
            Map.entry(HostWaits.class, () -> HostWaits.HOLD_ON_HOST),
            Map.entry(java.nio.file.Path.class, () -> java.nio.file.Path.of("trace.json")));

    /** Every value type with its public methods and constructors, and a fresh receiver for the instance methods. */
    private static final Map<Class<?>, Supplier<Object>> TYPES = Map.of(
            Kernel.class, () -> Kernel.named("k").java(t -> { }).build(),
            Kernel.Builder.class, () -> Kernel.named("k"),
            KernelParam.class, () -> KernelParam.scalar("p", DType.I32),
            LaunchConfig.class, () -> LaunchConfig.of(1, 1),
            Dim.class, () -> Dim.of(1),
            ContextOptions.class, ContextOptions::defaults,
            StreamOptions.class, StreamOptions::defaults,
            DType.class, () -> DType.I32,
            Api.class, () -> Api.CPU,
            TraceSpan.class, () -> new TraceSpan("default", "marker", null, 0, 1));

    @Test
    void everyFactoryAndBuilderRefusesNullWithAnInvalidArgumentException() throws Exception {
        List<String> walked = new ArrayList<>();
        List<String> wrong = new ArrayList<>();
        for (var type : TYPES.entrySet()) {
            List<Executable> members = new ArrayList<>(List.of(type.getKey().getConstructors()));
            for (Method m : type.getKey().getMethods()) {
                boolean enumMember = type.getKey().isEnum() && (m.getName().equals("valueOf") || m.getName().equals("values"));
                if (m.getDeclaringClass() == type.getKey() && !m.isSynthetic() && !m.getName().equals("equals") && !enumMember) {
                    members.add(m);
                }
            }
            for (Executable member : members) {
                Class<?>[] params = member.getParameterTypes();
                for (int i = 0; i < params.length; i++) {
                    if (params[i].isPrimitive()
                            || member.getAnnotatedParameterTypes()[i].isAnnotationPresent(org.jspecify.annotations.Nullable.class)) {
                        continue;
                    }
                    Object[] args = new Object[params.length];
                    for (int j = 0; j < params.length; j++) {
                        Supplier<Object> sample = SAMPLES.get(params[j]);
                        if (sample == null) {
                            fail("no sample value of " + params[j].getName() + " for " + member + ": add one");
                        }
                        args[j] = j == i ? null : sample.get();
                    }
                    String call = member + " with argument " + i + " null";
                    walked.add(call);
                    Throwable thrown = call(type.getValue(), member, args);
                    if (!(thrown instanceof InvalidArgumentException e)) {
                        wrong.add(call + ": " + (thrown == null ? "accepted" : thrown.toString()));
                    } else if (e.argument() == null || e.argument().isBlank() || !e.getMessage().contains("null")) {
                        wrong.add(call + ": does not name the argument or say null: " + e.getMessage());
                    }
                }
            }
        }
        assertTrue(walked.size() >= 25, "the walk must reach the factories and builders: " + walked);
        assertTrue(wrong.isEmpty(), "null must be refused with an InvalidArgumentException naming the argument:\n"
                + String.join("\n", wrong));
    }

    /** What {@code member} throws when called with {@code args} (on a fresh receiver where it is an instance method). */
    private static Throwable call(Supplier<Object> receiver, Executable member, Object[] args) throws IllegalAccessException,
            InstantiationException {
        try {
            if (member instanceof Constructor<?> c) {
                c.newInstance(args);
            } else {
                Method m = (Method) member;
                m.invoke(Modifier.isStatic(m.getModifiers()) ? null : receiver.get(), args);
            }
            return null;
        } catch (InvocationTargetException e) {
            return e.getCause();
        }
    }

    @Test
    void nullElementsOfArraysAndListsAreRefusedByName() {
        assertNamed("params", () -> Kernel.named("k").params(KernelParam.scalar("a", DType.I32), null));
        assertNamed("attributes", () -> LaunchConfig.of(1, 1).withAttributes(new LaunchAttribute.Priority(0), null));
        List<LaunchAttribute> withNull = new ArrayList<>();
        withNull.add(null);
        assertNamed("attributes", () -> new LaunchConfig(Dim.of(1), Dim.of(1), Dim.of(1), 0, withNull));
        assertNamed("contextFlags", () -> ContextOptions.defaults().withContextFlags((ContextFlag[]) null));
    }

    // ---------------------------------------------------------------- names

    @Test
    void parameterNamesMustBeCIdentifiersLikeKernelNames() {
        for (String bad : new String[] {"", "a b", "x;y", "1st", "a-b", "na\u00efve", "x\n", " x"}) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> KernelParam.scalar(bad, DType.I32),
                    () -> "parameter name '" + bad + "'");
            assertEquals("name", e.argument());
            assertMentions(e, "'" + bad + "'", "C identifier");
            assertThrows(InvalidArgumentException.class, () -> KernelParam.pointer(bad, DType.F32));
            assertThrows(InvalidArgumentException.class, () -> Kernel.named(bad), () -> "kernel name '" + bad + "'");
        }
        for (String good : new String[] {"x", "_", "_x1", "vector_2", "N"}) {
            assertEquals(good, KernelParam.scalar(good, DType.I32).name());
        }
    }

    @Test
    void aParameterNameGivenTwiceIsRefusedAndLeavesTheBuilderAsItWas() {
        Kernel.Builder b = Kernel.named("twice").param(KernelParam.pointer("v", DType.I32));
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> b.param(KernelParam.scalar("v", DType.I64)));
        assertEquals("param", e.argument());
        assertMentions(e, "twice", "'v'");
        InvalidArgumentException all = assertThrows(InvalidArgumentException.class,
                () -> b.params(KernelParam.scalar("n", DType.I64), KernelParam.scalar("n", DType.I32)));
        assertEquals("params", all.argument());
        assertMentions(all, "'n'");
        Kernel k = b.param(KernelParam.scalar("n", DType.I64)).java(t -> { }).build();
        assertEquals(List.of("v", "n"), k.params().stream().map(KernelParam::name).toList(), "a refused params() adds none");
    }

    // ---------------------------------------------------------------- numbers

    /** A Number of a kind Sluice does not know, reading its value as a BigDecimal would. */
    private static final class Custom extends Number {
        private final BigDecimal v;

        Custom(String v) {
            this.v = new BigDecimal(v);
        }

        @Override public int intValue() { return v.intValue(); }
        @Override public long longValue() { return v.longValue(); }
        @Override public float floatValue() { return v.floatValue(); }
        @Override public double doubleValue() { return v.doubleValue(); }
        @Override public String toString() { return v.toString(); }
    }

    @Test
    void integerTypesTakeEveryKindOfNumberExactlyOrRefuseIt() {
        BigInteger tenToThe19 = BigInteger.TEN.pow(19);
        // exact values of every kind
        assertEquals(7, DType.I32.bits("v", new BigDecimal("7")));
        assertEquals(7, DType.I32.bits("v", new BigDecimal("7.000")));
        assertEquals(7, DType.I32.bits("v", new BigDecimal("0.7E1")));
        assertEquals(0, DType.I32.bits("v", new BigDecimal("0E-5")));
        assertEquals(-1 & 0xFFFF_FFFFL, DType.I32.bits("v", new AtomicInteger(-1)));
        assertEquals(Long.MAX_VALUE, DType.I64.bits("v", new AtomicLong(Long.MAX_VALUE)));
        LongAdder adder = new LongAdder();
        adder.add(300);
        assertEquals(300, DType.U16.bits("v", adder));
        assertEquals(tenToThe19.longValue(), DType.U64.bits("v", tenToThe19));
        assertEquals(tenToThe19.longValue(), DType.U64.bits("v", new BigDecimal(tenToThe19)));
        assertEquals(tenToThe19.longValue(), DType.U64.bits("v", new Custom(tenToThe19.toString())));
        assertEquals(12, DType.I8.bits("v", new Custom("12")));
        // fractions
        for (Number n : new Number[] {new BigDecimal("1.75"), new Custom("1.75"), new BigDecimal("-0.5")}) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> DType.I32.bits("value", n),
                    () -> n.getClass().getSimpleName() + " " + n);
            assertEquals("value", e.argument());
            assertMentions(e, n.toString(), "fraction", "I32", "-2147483648..2147483647");
        }
        DoubleAdder d = new DoubleAdder();
        d.add(2);
        assertMentions(assertThrows(InvalidArgumentException.class, () -> DType.I64.bits("value", d)), "floating-point", "I64");
        // out of range, however the number holds it
        for (Number n : new Number[] {tenToThe19, new BigDecimal(tenToThe19), new Custom(tenToThe19.toString()),
                new BigDecimal("1E+400"), new Custom("-1E+25")}) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> DType.I64.bits("value", n),
                    () -> n.getClass().getSimpleName() + " " + n);
            assertMentions(e, "value", n.toString(), "I64", "-9223372036854775808..9223372036854775807");
        }
        assertMentions(assertThrows(InvalidArgumentException.class, () -> DType.U64.bits("value", BigInteger.TWO.pow(64))),
                "U64", "0..18446744073709551615");
        assertMentions(assertThrows(InvalidArgumentException.class, () -> DType.U8.bits("value", new BigDecimal("256"))),
                "256", "U8", "0..255");
        assertMentions(assertThrows(InvalidArgumentException.class, () -> DType.U32.bits("value", new AtomicLong(-1))),
                "-1", "U32", "0..4294967295");
        assertMentions(assertThrows(InvalidArgumentException.class, () -> DType.I32.bits("value", null)), "value", "null");
    }

    @Test
    void aNumberWhoseReadingsDisagreeIsRefused() {
        Number liar = new Number() {
            @Override public int intValue() { return 1; }
            @Override public long longValue() { return 1; }
            @Override public float floatValue() { return 2; }
            @Override public double doubleValue() { return 2; }
            @Override public String toString() { return "liar"; }
        };
        assertMentions(assertThrows(InvalidArgumentException.class, () -> DType.I32.bits("value", liar)), "liar", "exactly");
    }

    @Test
    void fillsRefuseANumberThatIsNotExactlyAnElement() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer ints = ctx.allocate(DType.I32, 4);
        DeviceBuffer longs = ctx.allocate(DType.I64, 4);
        assertInvalid("value", s, () -> s.enqueueFill(ints, new BigDecimal("1.75")), "1.75", "fraction", "I32");
        assertInvalid("value", s, () -> s.enqueueFill(longs, BigInteger.TEN.pow(19)), "10000000000000000000", "I64",
                "9223372036854775807");
        assertInvalid("value", s, () -> s.enqueueFill(ints, new Custom("2.5")), "2.5", "fraction");
        await(s.enqueueFill(ints, new BigDecimal("-3.000")));
        assertArrayEquals(filled(4, -3), readInts(s, ints));
    }

    @Test
    void scalarArgumentsRefuseANumberThatIsNotExactlyOfTheirType() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer ints = ctx.allocate(DType.I64, 9);
        DeviceBuffer reals = ctx.allocate(DType.F64, 2);
        Object[] args = {(byte) 1, 2, (short) 3, 4, new BigDecimal("1.75"), 6L, 7L, 8L, true, 1f, 2.0, ints, reals};
        InvalidArgumentException e = assertRejected(InvalidArgumentException.class, s,
                () -> s.enqueueLaunch(fn(TestKernels.STORE_SCALARS), LaunchConfig.of(1, 1), args), "1.75", "fraction", "int");
        assertTrue(e.argument().contains("arguments[4]"), e.argument());
        args[4] = 5;
        args[6] = BigInteger.TEN.pow(19);
        assertRejected(InvalidArgumentException.class, s,
                () -> s.enqueueLaunch(fn(TestKernels.STORE_SCALARS), LaunchConfig.of(1, 1), args), "10000000000000000000", "I64");
    }

    // ---------------------------------------------------------------- grid arithmetic

    @Test
    void forElementsCoversEveryElementOrRefusesOnOverflow() {
        long most = (long) Integer.MAX_VALUE * LaunchConfig.DEFAULT_BLOCK_SIZE;
        for (long n : new long[] {1, 255, 256, 257, 1L << 31, most - 1, most}) {
            LaunchConfig c = LaunchConfig.forElements(n);
            long covered = c.grid().volume() * c.block().volume();
            assertTrue(covered >= n && covered - c.block().volume() < n, () -> "n " + n + ": " + c);
        }
        for (long n : new long[] {most + 1, Long.MAX_VALUE, Long.MAX_VALUE - 1, Long.MAX_VALUE - 255, 1L << 62}) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> LaunchConfig.forElements(n),
                    () -> "n " + n);
            assertEquals("n", e.argument());
            assertMentions(e, Long.toString(n), Integer.toString(Integer.MAX_VALUE));
        }
        for (long n : new long[] {0, -1, Long.MIN_VALUE}) {
            assertEquals("n", assertThrows(InvalidArgumentException.class, () -> LaunchConfig.forElements(n)).argument());
        }
    }

    @Test
    void dimsAndOptionsStillBuildFromValidInput() {
        assertDoesNotThrow(() -> LaunchConfig.of(Dim.of(2, 3, 4), Dim.of(8)).withCluster(Dim.of(2)).withAttributes());
        assertNotNull(ContextOptions.defaults().withWaitStrategy(WaitStrategy.SPIN).withHostWaits(HostWaits.GATE_ON_DEVICE));
        assertEquals(-1, StreamOptions.defaults().withPriority(-1).priority());
    }

    private static void assertNamed(String argument, org.junit.jupiter.api.function.Executable call) {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, call);
        assertEquals(argument, e.argument(), e.getMessage());
    }
}
