package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.sluice.Api;
import dev.sluice.CompilationException;
import dev.sluice.DType;
import dev.sluice.DeviceAttribute;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceStream;
import dev.sluice.FunctionAttribute;
import dev.sluice.Dim;
import dev.sluice.HostData;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchAttribute;
import dev.sluice.LaunchConfig;
import dev.sluice.UnsupportedOnBackendException;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import dev.sluice.ClosedResourceException;
import dev.sluice.InvalidArgumentException;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** Kernel launches: grids of 1, 2 and 3 dimensions, arguments, shared memory, repeated launches. */
public abstract class AbstractLaunchTest extends ConformanceBase {

    /** Launches {@link TestKernels#WRITE_COORDS} over {@code grid} x {@code block} and checks every thread wrote once, correctly. */
    private void checkEveryThread(Dim grid, Dim block) {
        DeviceStream s = ctx.createStream();
        long w = (long) grid.x() * block.x();
        long h = (long) grid.y() * block.y();
        long d = (long) grid.z() * block.z();
        int n = Math.toIntExact(w * h * d);
        DeviceBuffer index = ctx.allocate(DType.I32, n);
        DeviceBuffer coords = ctx.allocate(DType.I32, 6L * n);
        s.enqueueFill(index, -1);
        s.enqueueFill(coords, -1);
        s.enqueueLaunch(fn(TestKernels.WRITE_COORDS), LaunchConfig.of(grid, block), index, coords);
        int[] idx = readInts(s, index);
        int[] c = readInts(s, coords);
        for (int i = 0; i < n; i++) {
            assertEquals(i, idx[i], "thread with global linear index " + i + " did not write it");
            long x = i % w;
            long y = (i / w) % h;
            long z = i / (w * h);
            int[] expected = {(int) (x / block.x()), (int) (y / block.y()), (int) (z / block.z()),
                    (int) (x % block.x()), (int) (y % block.y()), (int) (z % block.z())};
            int[] got = {c[6 * i], c[6 * i + 1], c[6 * i + 2], c[6 * i + 3], c[6 * i + 4], c[6 * i + 5]};
            if (!java.util.Arrays.equals(expected, got)) {
                fail("thread " + i + " of grid " + grid + " block " + block + ": blockIdx/threadIdx "
                        + java.util.Arrays.toString(got) + ", expected " + java.util.Arrays.toString(expected));
            }
        }
    }

    @Test
    void oneDimensionalGridRunsEveryThreadOnce() {
        checkEveryThread(Dim.of(37), Dim.of(64));
    }

    @Test
    void twoDimensionalGridRunsEveryThreadOnce() {
        checkEveryThread(Dim.of(5, 3), Dim.of(8, 4));
    }

    @Test
    void threeDimensionalGridRunsEveryThreadOnce() {
        checkEveryThread(Dim.of(3, 2, 4), Dim.of(4, 4, 2));
    }

    @Test
    void gridWiderThanTheYAndZLimitsRunsEveryBlock() {
        long maxY = attributeOr(ctx, DeviceAttribute.MAX_GRID_DIM_Y, 65535);
        Assumptions.assumeTrue(attributeOr(ctx, DeviceAttribute.MAX_GRID_DIM_X, 65535) > 70_000,
                "MAX_GRID_DIM_X of this device is not above 70000");
        checkEveryThread(Dim.of((int) Math.max(70_000, maxY + 1)), Dim.of(1));
    }

    @Test
    void scalarAddAddsToEveryElementBelowSize() {
        DeviceStream s = ctx.createStream();
        int n = 1000; // not a multiple of the block size
        float[] in = new float[n + 24];
        for (int i = 0; i < in.length; i++) {
            in[i] = i;
        }
        DeviceBuffer v = ctx.allocate(DType.F32, in.length);
        s.enqueueCopy(HostData.of(in), v);
        s.enqueueLaunch(fn(TestKernels.SCALAR_ADD), LaunchConfig.forElements(n), v, (long) n, 2.5f);
        float[] out = readFloats(s, v);
        for (int i = 0; i < in.length; i++) {
            assertEquals(i < n ? i + 2.5f : i, out[i], "element " + i);
        }
    }

    @Test
    void vectorAddAddsElementwise() {
        DeviceStream s = ctx.createStream();
        int n = 4099;
        float[] a = new float[n];
        float[] b = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
            b[i] = 2 * i + 0.5f;
        }
        DeviceBuffer da = ctx.allocate(DType.F32, n);
        DeviceBuffer db = ctx.allocate(DType.F32, n);
        DeviceBuffer dc = ctx.allocate(DType.F32, n);
        s.enqueueCopy(HostData.of(a), da);
        s.enqueueCopy(HostData.of(b), db);
        s.enqueueLaunch(fn(TestKernels.VECTOR_ADD), LaunchConfig.forElements(n), da, db, dc, (long) n);
        float[] c = readFloats(s, dc);
        for (int i = 0; i < n; i++) {
            assertEquals(3 * i + 0.5f, c[i], "element " + i);
        }
    }

    @Test
    void scalarArgumentsArriveAsTheirCTypes() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer ints = ctx.allocate(DType.I64, 9);
        DeviceBuffer reals = ctx.allocate(DType.F64, 2);
        s.enqueueLaunch(fn(TestKernels.STORE_SCALARS), LaunchConfig.of(1, 1),
                (byte) -5, 200, (short) -1234, 60000, -123456789, 4_000_000_000L, Long.MIN_VALUE + 7,
                BigInteger.TWO.pow(64).subtract(BigInteger.ONE), true, 1.25f, -2.5e300, ints, reals);
        long[] gotInts = new long[9];
        double[] gotReals = new double[2];
        s.enqueueCopy(ints, HostData.of(gotInts));
        await(s.enqueueCopy(reals, HostData.of(gotReals)));
        assertArrayEquals(new long[] {-5, 200, -1234, 60000, -123456789, 4_000_000_000L, Long.MIN_VALUE + 7, -1, 1}, gotInts,
                "signed char, unsigned char, short, unsigned short, int, unsigned int, long long, unsigned long long (bits), bool");
        assertArrayEquals(new double[] {1.25, -2.5e300}, gotReals, "float, double");
    }

    @Test
    void kernelSeesASliceFromItsFirstElement() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = ctx.allocate(DType.F32, 16);
        s.enqueueFill(v, 1f);
        s.enqueueLaunch(fn(TestKernels.SCALAR_ADD), LaunchConfig.of(1, 4), v.slice(6, 4), 4L, 10f);
        float[] out = readFloats(s, v);
        for (int i = 0; i < 16; i++) {
            assertEquals(i >= 6 && i < 10 ? 11f : 1f, out[i], "element " + i);
        }
    }

    @Test
    void dynamicSharedMemoryIsSharedWithinEachBlock() {
        DeviceStream s = ctx.createStream();
        int blocks = 8;
        int threads = 128;
        int[] in = new int[blocks * threads];
        int[] expected = new int[blocks];
        for (int i = 0; i < in.length; i++) {
            in[i] = i % 97 - 13;
            expected[i / threads] += in[i];
        }
        DeviceBuffer din = ctx.allocate(DType.I32, in.length);
        DeviceBuffer dout = intBuffer(ctx, filled(blocks, 0));
        s.enqueueCopy(HostData.of(in), din);
        s.enqueueLaunch(fn(TestKernels.BLOCK_SUM), LaunchConfig.of(blocks, threads).withSharedMemory(threads * 4L), din, dout);
        assertArrayEquals(expected, readInts(s, dout), "per-block sums through shared memory and barriers");
    }

    @Test
    void sharedMemoryUpToTheDefaultLimitCanBeLaunched() {
        long limit = attributeOr(ctx, DeviceAttribute.MAX_SHARED_MEMORY_PER_BLOCK, -1);
        Assumptions.assumeTrue(limit > 0, "MAX_SHARED_MEMORY_PER_BLOCK is not reported by this backend");
        DeviceStream s = ctx.createStream();
        int threads = 64;
        DeviceBuffer din = intBuffer(ctx, filled(threads, 2));
        DeviceBuffer dout = intBuffer(ctx, 0);
        s.enqueueLaunch(fn(TestKernels.BLOCK_SUM), LaunchConfig.of(1, threads).withSharedMemory(limit), din, dout);
        assertArrayEquals(new int[] {2 * threads}, readInts(s, dout));
    }

    @Test
    void oneCompiledFunctionLaunchesManyTimes() {
        DeviceStream s = ctx.createStream();
        DeviceFunction f = ctx.compile(TestKernels.MUL_ADD);
        assertSame(TestKernels.MUL_ADD, f.kernel());
        assertSame(ctx, f.context());
        DeviceBuffer v = intBuffer(ctx, filled(33, 0));
        for (int i = 0; i < 200; i++) {
            s.enqueueLaunch(f, LaunchConfig.forElements(33), v, 33L, 1, 1);
        }
        assertArrayEquals(filled(33, 200), readInts(s, v));
        f.close();
    }

    @Test
    void functionsLaunchOnAnyStreamOfTheirContext() {
        DeviceFunction f = fn(TestKernels.MUL_ADD);
        DeviceBuffer v = intBuffer(ctx, filled(8, 1));
        DeviceStream a = ctx.createStream();
        a.enqueueLaunch(f, LaunchConfig.of(1, 8), v, 8L, 3, 0);
        ctx.stream().waitFor(a);
        ctx.stream().enqueueLaunch(f, LaunchConfig.of(1, 8), v, 8L, 1, 1);
        assertArrayEquals(filled(8, 4), readInts(ctx.stream(), v));
    }

    @Test
    void launchConfigForElementsCoversTheElements() {
        LaunchConfig c = LaunchConfig.forElements(1000);
        assertEquals(Dim.of(LaunchConfig.DEFAULT_BLOCK_SIZE), c.block());
        assertEquals(Dim.of(4), c.grid());
        assertEquals(Dim.of(10), LaunchConfig.forElements(10).block());
        assertEquals(Dim.of(1, 1, 1), Dim.of(1));
        assertEquals(24, Dim.of(2, 3, 4).volume());
    }

    @Test
    void clusterLaunchRunsOrIsRefusedAsTheClusterLaunchAttributeSays() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = intBuffer(ctx, filled(8 * 32, 0));
        LaunchConfig c = LaunchConfig.of(8, 32).withCluster(Dim.of(2));
        if (attributeOr(ctx, DeviceAttribute.CLUSTER_LAUNCH, 0) != 0) {
            s.enqueueLaunch(fn(TestKernels.MUL_ADD), c, v, 256L, 1, 5);
            assertArrayEquals(filled(256, 5), readInts(s, v));
        } else {
            assertRejected(UnsupportedOnBackendException.class, s, () -> s.enqueueLaunch(fn(TestKernels.MUL_ADD), c, v, 256L, 1, 5),
                    "cluster");
        }
    }

    @Test
    void launchAttributesAreAppliedOrRefusedClearly() {
        DeviceStream s = ctx.createStream();
        DeviceBuffer v = intBuffer(ctx, filled(32, 0));
        LaunchConfig c = LaunchConfig.of(1, 32).withAttributes(new LaunchAttribute.Priority(0));
        try {
            await(s.enqueueLaunch(fn(TestKernels.MUL_ADD), c, v, 32L, 1, 2));
        } catch (UnsupportedOnBackendException e) {
            if (target().api() == Api.CPU) {
                fail("the CPU backend accepts and ignores scheduling hints", e);
            }
            Assumptions.abort("launch attribute Priority is not supported on " + ctx.backendName() + ": " + e.getMessage());
        }
        assertArrayEquals(filled(32, 2), readInts(s, v));
    }

    @Test
    void kernelWithoutAFormForThisBackendIsRefused() {
        Kernel.Builder b = Kernel.named("no_form_here").param(KernelParam.pointer("v", DType.I32));
        Kernel k = target().api() == Api.CPU
                ? b.cudaSource("extern \"C\" __global__ void no_form_here(int* v) { v[0] = 1; }").build()
                : b.java(t -> { }).build();
        UnsupportedOnBackendException e = assertThrows(UnsupportedOnBackendException.class, () -> ctx.compile(k));
        assertMentions(e, "no_form_here");
        assertStreamUsable(ctx.stream());
    }

    @Test
    void brokenSourceFailsCompilationWithTheLogWhereSourceIsCompiled() {
        Kernel k = Kernel.named("broken").param(KernelParam.pointer("v", DType.I32))
                .cudaSource("extern \"C\" __global__ void broken(int* v) { v[0] = undeclared_name; }")
                .java(t -> t.pointer(0).set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, 0, 5))
                .build();
        if (target().api() == Api.CPU) {
            // The CPU backend runs the Java form and never compiles the source.
            DeviceBuffer v = intBuffer(ctx, 0);
            ctx.stream().enqueueLaunch(ctx.compile(k), LaunchConfig.of(1, 1), v);
            assertArrayEquals(new int[] {5}, readInts(ctx.stream(), v));
            return;
        }
        CompilationException e = assertThrows(CompilationException.class, () -> ctx.compile(k));
        assertMentions(e, "undeclared_name");
        assertTrue(e.log().contains("undeclared_name"), "the compiler's log: " + e.log());
        assertStreamUsable(ctx.stream());
    }

    @Test
    void moduleVariablesAreWrittenByCopiesAndReadByLaunchesInStreamOrder() {
        DeviceFunction f = fn(TestKernels.AFFINE_FROM_CONSTANT);
        if (target().api() == Api.CPU) {
            UnsupportedOnBackendException e = assertThrows(UnsupportedOnBackendException.class, () -> f.global("affine", DType.F32));
            assertMentions(e, "module variables", "affine", "DeviceBuffer argument");
            return;
        }
        DeviceStream s = ctx.createStream();
        DeviceBuffer affine = f.global("affine", DType.F32);
        DeviceBuffer launches = f.global("launches", DType.I32);
        assertEquals(3, affine.count());
        assertEquals(1, launches.count());
        int n = 1000;
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = i;
        }
        DeviceBuffer d = ctx.allocate(DType.F32, n);
        s.enqueueCopy(HostData.of(x), d);
        s.enqueueFill(launches, 0);
        s.enqueueCopy(HostData.of(new float[] {3f, 0.5f, 0f}), affine);
        s.enqueueLaunch(f, LaunchConfig.forElements(n), d, (long) n);
        s.enqueueCopy(HostData.of(new float[] {2f, -1f, 0f}), affine); // the second launch, after it in stream order, reads these
        s.enqueueLaunch(f, LaunchConfig.forElements(n), d, (long) n);
        float[] out = new float[n];
        await(s.enqueueCopy(d, HostData.of(out)));
        for (int i = 0; i < n; i++) {
            assertEquals((i * 3f + 0.5f) * 2f - 1f, out[i], "element " + i);
        }
        int[] count = new int[1];
        await(s.enqueueCopy(launches, HostData.of(count)));
        assertEquals(2, count[0], "a __device__ variable read back with a copy");

        InvalidArgumentException missing = assertThrows(InvalidArgumentException.class, () -> f.global("no_such_variable", DType.F32));
        assertEquals("name", missing.argument());
        assertMentions(missing, "no_such_variable");
        InvalidArgumentException size = assertThrows(InvalidArgumentException.class, () -> f.global("affine", DType.F64));
        assertEquals("type", size.argument());
        assertMentions(size, "12 bytes");
        assertInvalid("buffer", s, () -> s.enqueueFree(affine), "owns no memory");

        DeviceFunction g = ctx.compile(TestKernels.AFFINE_FROM_CONSTANT);
        DeviceBuffer gone = g.global("affine", DType.F32);
        g.close();
        assertThrows(ClosedResourceException.class, () -> s.enqueueCopy(HostData.of(new float[3]), gone), "the function was closed");
        assertThrows(ClosedResourceException.class, () -> g.global("affine", DType.F32));
    }

    @Test
    void functionAttributesAreReportedAndTheSettableOnesSet() {
        DeviceFunction f = fn(TestKernels.MUL_ADD);
        InvalidArgumentException readOnly = assertThrows(InvalidArgumentException.class,
                () -> f.setAttribute(FunctionAttribute.REGISTERS, 16));
        assertEquals("attribute", readOnly.argument());
        assertMentions(readOnly, "REGISTERS", "read-only");
        for (FunctionAttribute a : FunctionAttribute.values()) {
            // 0 is a value neither settable attribute refuses; a read-only one is refused for being read-only
            if (!a.isSettable()) {
                assertMentions(assertThrows(InvalidArgumentException.class, () -> f.setAttribute(a, 0)), a.name(), "read-only");
            }
        }
        assertEquals(Set.of(FunctionAttribute.MAX_DYNAMIC_SHARED_MEMORY_BYTES, FunctionAttribute.PREFERRED_SHARED_MEMORY_CARVEOUT),
                Arrays.stream(FunctionAttribute.values()).filter(FunctionAttribute::isSettable).collect(Collectors.toSet()),
                "the settable attributes, which the rest of this test sets");
        InvalidArgumentException tooBig = assertThrows(InvalidArgumentException.class,
                () -> f.setAttribute(FunctionAttribute.MAX_DYNAMIC_SHARED_MEMORY_BYTES, Integer.MAX_VALUE));
        assertEquals("value", tooBig.argument());
        assertMentions(tooBig, String.valueOf(Integer.MAX_VALUE), "opt-in limit");
        InvalidArgumentException percent = assertThrows(InvalidArgumentException.class,
                () -> f.setAttribute(FunctionAttribute.PREFERRED_SHARED_MEMORY_CARVEOUT, 101));
        assertEquals("value", percent.argument());
        assertMentions(percent, "101", "100 percent");
        if (target().api() == Api.CPU) {
            assertMentions(assertThrows(UnsupportedOnBackendException.class, () -> f.attribute(FunctionAttribute.REGISTERS)),
                    "REGISTERS");
            f.setAttribute(FunctionAttribute.PREFERRED_SHARED_MEMORY_CARVEOUT, 50); // accepted, nothing to configure
            return;
        }
        long maxThreads = f.attribute(FunctionAttribute.MAX_THREADS_PER_BLOCK);
        assertTrue(maxThreads >= 1 && maxThreads <= ctx.attribute(DeviceAttribute.MAX_THREADS_PER_BLOCK), "" + maxThreads);
        assertTrue(f.attribute(FunctionAttribute.REGISTERS) > 0);
        assertTrue(f.attribute(FunctionAttribute.LOCAL_MEMORY_BYTES) >= 0);
        assertTrue(f.attribute(FunctionAttribute.BINARY_VERSION) >= 0);
        if (target().api() == Api.HIP) {
            assertThrows(UnsupportedOnBackendException.class,
                    () -> f.setAttribute(FunctionAttribute.PREFERRED_SHARED_MEMORY_CARVEOUT, 50));
            return;
        }
        f.setAttribute(FunctionAttribute.PREFERRED_SHARED_MEMORY_CARVEOUT, 50);
        assertEquals(50, f.attribute(FunctionAttribute.PREFERRED_SHARED_MEMORY_CARVEOUT));
        f.setAttribute(FunctionAttribute.MAX_DYNAMIC_SHARED_MEMORY_BYTES, 64 * 1024);
        assertEquals(64 * 1024, f.attribute(FunctionAttribute.MAX_DYNAMIC_SHARED_MEMORY_BYTES));
        DeviceBuffer v = intBuffer(ctx, filled(1000, 2));
        DeviceStream s = ctx.createStream();
        s.enqueueLaunch(f, LaunchConfig.forElements(1000).withSharedMemory(60 * 1024), v, 1000L, 3, 1);
        int[] out = new int[1000];
        await(s.enqueueCopy(v, HostData.of(out)));
        assertArrayEquals(filled(1000, 7), out, "a launch asking for 60 KiB of dynamic shared memory runs");
    }
}
