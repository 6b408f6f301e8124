package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sluice.Api;
import dev.sluice.ClosedResourceException;
import dev.sluice.ContextFlag;
import dev.sluice.ContextOptions;
import dev.sluice.DType;
import dev.sluice.DeviceAttribute;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceEvent;
import dev.sluice.DeviceFunction;
import dev.sluice.DeviceStream;
import dev.sluice.Dim;
import dev.sluice.EventFlag;
import dev.sluice.HostBuffer;
import dev.sluice.HostData;
import dev.sluice.InvalidArgumentException;
import dev.sluice.LaunchConfig;
import dev.sluice.Limit;
import dev.sluice.PriorityRange;
import dev.sluice.StreamOptions;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Bad input: every public method checks its arguments before any native call and throws at
 * the call with a message that names the argument, the value and the bound; nothing is enqueued (the stream's
 * next sequence number follows the previous one) and the stream stays usable (a fill and a copy still work).
 */
public abstract class AbstractBadInputTest extends ConformanceBase {

    private DeviceStream s;

    private DeviceStream stream() {
        if (s == null) {
            s = ctx.createStream();
        }
        return s;
    }

    private DeviceContext otherContext() {
        return open(ContextOptions.defaults());
    }

    /** Valid arguments of {@link TestKernels#STORE_SCALARS} with {@code index} replaced by {@code value}. */
    private Object[] storeScalarsArgs(int index, Object value) {
        Object[] a = {(byte) 1, 2, (short) 3, 4, 5, 6L, 7L, 8L, true, 1f, 2.0, ctx.allocate(DType.I64, 9), ctx.allocate(DType.F64, 2)};
        a[index] = value;
        return a;
    }

    // ---------------------------------------------------------------- options

    @Test
    void contextFlagsThatExcludeEachOtherAreRefused() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                () -> ContextOptions.defaults().withContextFlags(ContextFlag.SCHEDULE_SPIN, ContextFlag.SCHEDULE_YIELD));
        assertEquals("contextFlags", e.argument());
        assertMentions(e, "contextFlags", "SCHEDULE_SPIN", "SCHEDULE_YIELD", "more than one");
        InvalidArgumentException n = assertThrows(InvalidArgumentException.class,
                () -> ContextOptions.defaults().withContextFlags(ContextFlag.SCHEDULE_SPIN, null));
        assertEquals("contextFlags", n.argument());
        assertEquals(java.util.Set.of(ContextFlag.SCHEDULE_SPIN, ContextFlag.SYNC_MEMORY_OPERATIONS), ContextOptions.defaults()
                .withContextFlags(ContextFlag.SCHEDULE_SPIN, ContextFlag.SYNC_MEMORY_OPERATIONS).contextFlags());
    }

    @Test
    void markerBatchesOutsideTheirRangeAreRefused() {
        for (int bad : new int[] {0, -1, ContextOptions.MAX_MARKER_BATCH + 1}) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class,
                    () -> ContextOptions.defaults().withMarkerBatch(bad));
            assertEquals("markerBatch", e.argument());
            assertMentions(e, "markerBatch", Integer.toString(bad), "1.." + ContextOptions.MAX_MARKER_BATCH);
        }
        assertEquals(16, ContextOptions.defaults().withMarkerBatch(16).markerBatch());
        String property = System.getProperty(dev.sluice.SluiceProperties.MARKER_BATCH); // set by a suite run under it
        assertEquals(property == null ? ContextOptions.DEFAULT_MARKER_BATCH : Integer.parseInt(property),
                ContextOptions.defaults().markerBatch());
    }

    // ---------------------------------------------------------------- sizes

    @Test
    void allocateZeroElementsIsRejected() {
        assertInvalid("count", ctx.stream(), () -> ctx.allocate(DType.I32, 0), "0", "positive");
    }

    @Test
    void allocateNegativeElementsIsRejected() {
        assertInvalid("count", ctx.stream(), () -> ctx.allocate(DType.F32, -5), "-5", "positive");
    }

    @Test
    void streamOrderedAllocateOfZeroElementsIsRejected() {
        assertInvalid("count", stream(), () -> stream().enqueueAllocate(DType.I32, 0), "0", "positive");
    }

    @Test
    void allocateHostOfNegativeElementsIsRejected() {
        assertInvalid("count", ctx.stream(), () -> ctx.allocateHost(DType.I16, -1), "-1", "positive");
    }

    @Test
    void allocationWhoseByteSizeOverflowsIsRejected() {
        long n = Long.MAX_VALUE / 4;
        assertInvalid("count", ctx.stream(), () -> ctx.allocate(DType.I64, n), String.valueOf(n), "overflows");
    }

    // ---------------------------------------------------------------- offsets and ranges

    @Test
    void sliceBeyondTheBufferIsRejected() {
        DeviceBuffer b = ctx.allocate(DType.I32, 10);
        assertInvalid("count", stream(), () -> b.slice(8, 5), "5", "offset 8", "10");
    }

    @Test
    void sliceAtANegativeOffsetIsRejected() {
        DeviceBuffer b = ctx.allocate(DType.I32, 10);
        assertInvalid("bufferOffset", stream(), () -> b.slice(-1, 2), "-1");
    }

    @Test
    void sliceOfZeroElementsIsRejected() {
        DeviceBuffer b = ctx.allocate(DType.I32, 10);
        assertInvalid("count", stream(), () -> b.slice(0, 0), "0");
    }

    @Test
    void hostSliceBeyondTheBufferIsRejected() {
        HostBuffer h = ctx.allocateHost(DType.I32, 10);
        assertInvalid("count", stream(), () -> h.slice(3, 8), "8", "offset 3", "10");
    }

    @Test
    void wholeCopiesBetweenElementTypesOfOneSizeAreRejectedUnlessReinterpreted() {
        DeviceBuffer f = ctx.allocate(DType.F32, 8);
        DeviceBuffer i = ctx.allocate(DType.I32, 8);
        HostBuffer h = ctx.allocateHost(DType.I32, 8);
        assertInvalid("destination", stream(), () -> stream().enqueueCopy(f, i), "I32", "F32", "reinterpret");
        assertInvalid("destination", stream(), () -> stream().enqueueCopy(h, f), "F32", "I32");
        assertInvalid("destination", stream(), () -> stream().enqueueCopy(f, h), "I32", "F32");
        await(stream().enqueueFill(f, 1.0f));
        await(stream().enqueueCopy(f.reinterpret(DType.I32), i)); // explicit: the bits of 1.0f
        assertArrayEquals(filled(8, Float.floatToRawIntBits(1.0f)), readInts(stream(), i));
    }

    @Test
    void rangeCopyBeyondTheDestinationIsRejected() {
        HostBuffer h = ctx.allocateHost(DType.I32, 10);
        DeviceBuffer d = ctx.allocate(DType.I32, 10);
        assertInvalid("count", stream(), () -> stream().enqueueCopy(h.slice(0, 5), d.slice(8, 5)), "offset 8", "5", "10");
    }

    @Test
    void rangeCopyBeyondTheSourceIsRejected() {
        DeviceBuffer d = ctx.allocate(DType.I32, 10);
        HostBuffer h = ctx.allocateHost(DType.I32, 10);
        assertInvalid("count", stream(), () -> stream().enqueueCopy(d.slice(7, 4), h.slice(0, 4)), "offset 7", "4", "10");
    }

    @Test
    void rangeCopyAtANegativeOffsetIsRejected() {
        HostBuffer h = ctx.allocateHost(DType.I32, 10);
        assertInvalid("bufferOffset", stream(), () -> h.slice(-1, 2), "-1");
    }

    @Test
    void arrayRangePastTheEndIsRejectedForEveryArrayType() {
        java.util.List<org.junit.jupiter.api.function.Executable> ranges = java.util.List.of(
                () -> HostData.of(new float[10], 8, 5), () -> HostData.of(new double[10], 8, 5),
                () -> HostData.of(new int[10], 8, 5), () -> HostData.of(new long[10], 8, 5),
                () -> HostData.of(new short[10], 8, 5), () -> HostData.of(new byte[10], 8, 5));
        for (org.junit.jupiter.api.function.Executable range : ranges) {
            assertInvalid("count", stream(), range, "5 elements", "from index 8", "of 10 elements");
        }
        assertInvalid("count", stream(), () -> HostData.of(new int[10], 11, 1), "from index 11", "int[] of 10");
    }

    @Test
    void arrayRangeAtANegativeIndexIsRejected() {
        assertInvalid("from", stream(), () -> HostData.of(new float[10], -1, 2), "-1", "negative");
        assertInvalid("from", stream(), () -> HostData.of(new byte[10], Integer.MIN_VALUE, 2), "-2147483648");
    }

    @Test
    void arrayRangeOfNoElementsIsRejected() {
        assertInvalid("count", stream(), () -> HostData.of(new int[10], 0, 0), "0", "positive");
        assertInvalid("count", stream(), () -> HostData.of(new long[10], 2, -3), "-3", "positive");
    }

    @Test
    void arrayRangeWhoseEndOverflowsAnIntIsRejected() {
        assertInvalid("count", stream(), () -> HostData.of(new short[10], 5, Integer.MAX_VALUE), "2147483647", "from index 5");
        assertInvalid("count", stream(), () -> HostData.of(new double[10], Integer.MAX_VALUE, 2), "from index 2147483647");
    }

    @Test
    void arrayRangeOfAnotherSizeOrTypeThanTheBufferIsRejected() {
        DeviceBuffer d = ctx.allocate(DType.I32, 4);
        assertInvalid("destination", stream(), () -> stream().enqueueCopy(HostData.of(new int[10], 2, 5), d), "20 bytes",
                "16 bytes");
        assertInvalid("destination", stream(), () -> stream().enqueueCopy(HostData.of(new float[10], 2, 4), d), "I32", "F32");
        assertInvalid("source", stream(), () -> stream().enqueueCopy(d, HostData.of(new long[10], 2, 4)), "I32", "I64");
    }

    @Test
    void rangeCopyBetweenElementTypesIsRejected() {
        HostBuffer h = ctx.allocateHost(DType.F32, 4);
        DeviceBuffer d = ctx.allocate(DType.I32, 4);
        assertInvalid("destination", stream(), () -> stream().enqueueCopy(h.slice(0, 4), d.slice(0, 4)), "I32", "F32");
    }

    // ---------------------------------------------------------------- sizes that do not match

    @Test
    void copyBetweenBuffersOfDifferentSizesWithoutARangeIsRejected() {
        HostBuffer h = ctx.allocateHost(DType.I32, 10);
        DeviceBuffer d = ctx.allocate(DType.I32, 12);
        assertInvalid("destination", stream(), () -> stream().enqueueCopy(h, d), "40 bytes", "48 bytes");
    }

    @Test
    void deviceToDeviceCopyOfDifferentSizesIsRejected() {
        DeviceBuffer a = ctx.allocate(DType.I32, 10);
        DeviceBuffer b = ctx.allocate(DType.I32, 9);
        assertInvalid("destination", stream(), () -> stream().enqueueCopy(a, b), "40 bytes", "36 bytes");
    }

    @Test
    void arrayCopyOfADifferentLengthIsRejected() {
        DeviceBuffer d = ctx.allocate(DType.I32, 12);
        assertInvalid("destination", stream(), () -> stream().enqueueCopy(HostData.of(new int[10]), d), "40 bytes", "48 bytes");
        assertInvalid("destination", stream(), () -> stream().enqueueCopy(d, HostData.of(new int[13])), "48 bytes", "52 bytes");
    }

    @Test
    void segmentCopyOfADifferentSizeIsRejected() {
        DeviceBuffer d = ctx.allocate(DType.F64, 4);
        assertInvalid("destination", stream(), () -> stream().enqueueCopy(HostData.of(MemorySegment.ofArray(new byte[31])), d), "31 bytes",
                "32 bytes");
    }

    // ---------------------------------------------------------------- element types

    @Test
    void arrayCopyToABufferOfAnotherElementTypeIsRejected() {
        DeviceBuffer d = ctx.allocate(DType.I32, 4);
        assertInvalid("destination", stream(), () -> stream().enqueueCopy(HostData.of(new float[4]), d), "I32", "F32");
    }

    @Test
    void arrayCopyFromABufferOfAnotherElementTypeIsRejected() {
        DeviceBuffer d = ctx.allocate(DType.F64, 4);
        assertInvalid("source", stream(), () -> stream().enqueueCopy(d, HostData.of(new long[4])), "F64", "I64");
    }

    // ---------------------------------------------------------------- another context

    @Test
    void hostBufferOfAnotherContextIsRejectedUnlessTheySharePinnedMemory() {
        DeviceContext o = otherContext();
        HostBuffer h = o.allocateHost(DType.I32, 4);
        DeviceBuffer d = ctx.allocate(DType.I32, 4);
        if (ctx.sharesPinnedMemoryWith(o)) {
            await(stream().enqueueCopy(h, d)); // AbstractSharedPinnedMemoryTest checks the data
        } else {
            assertInvalid("source", stream(), () -> stream().enqueueCopy(h, d), "sharesPinnedMemoryWith");
        }
    }

    @Test
    void deviceBufferOfAnotherContextIsRejectedForHostCopies() {
        DeviceBuffer d = otherContext().allocate(DType.I32, 4);
        assertInvalid("source", stream(), () -> stream().enqueueCopy(d, HostData.of(new int[4])), "another context");
        assertInvalid("destination", stream(), () -> stream().enqueueFill(d, 1), "another context");
    }

    @Test
    void deviceCopyBetweenTwoOtherContextsIsRejected() {
        DeviceContext o = otherContext();
        DeviceBuffer a = o.allocate(DType.I32, 4);
        DeviceBuffer b = o.allocate(DType.I32, 4);
        assertInvalid("source", stream(), () -> stream().enqueueCopy(a, b), "neither");
    }

    @Test
    void kernelArgumentOfAnotherContextIsRejected() {
        DeviceBuffer d = otherContext().allocate(DType.F32, 4);
        assertInvalid("arguments[0] (float* vector)", stream(),
                () -> stream().enqueueLaunch(fn(TestKernels.SCALAR_ADD), LaunchConfig.of(1, 4), d, 4L, 1f), "another context");
    }

    @Test
    void eventOfAnotherContextIsRejected() {
        DeviceEvent e = otherContext().createEvent();
        assertInvalid("event", stream(), () -> stream().enqueueRecord(e), "another context");
        assertInvalid("event", stream(), () -> stream().waitFor(e), "another context");
    }

    @Test
    void functionOfAnotherContextIsRejected() {
        DeviceContext o = otherContext();
        DeviceFunction f = fn(o, TestKernels.SCALAR_ADD);
        DeviceBuffer d = ctx.allocate(DType.F32, 4);
        assertInvalid("function", stream(), () -> stream().enqueueLaunch(f, LaunchConfig.of(1, 4), d, 4L, 1f), "another context");
    }

    // ---------------------------------------------------------------- closed objects

    @Test
    void closedContextRefusesEveryCall() {
        DeviceContext o = otherContext();
        DeviceStream os = o.createStream();
        DeviceBuffer b = o.allocate(DType.I32, 4);
        o.close();
        assertMentions(assertThrows(ClosedResourceException.class, () -> o.allocate(DType.I32, 4)), "closed");
        assertMentions(assertThrows(ClosedResourceException.class, () -> o.stream().enqueueMarker()), "closed");
        assertMentions(assertThrows(ClosedResourceException.class, () -> os.enqueueFill(b, 1)), "closed");
        assertMentions(assertThrows(ClosedResourceException.class, o::createStream), "closed");
        assertMentions(assertThrows(ClosedResourceException.class, () -> o.compile(TestKernels.SCALAR_ADD)), "closed");
        assertMentions(assertThrows(ClosedResourceException.class, o::name), "closed");
        assertStreamUsable(ctx.stream()); // other contexts are unaffected
    }

    @Test
    void closedStreamIsRejected() {
        DeviceStream c = ctx.createStream();
        DeviceBuffer b = ctx.allocate(DType.I32, 4);
        c.close();
        assertTrue(c.isClosed());
        assertMentions(assertThrows(ClosedResourceException.class, () -> c.enqueueFill(b, 1)), "closed");
        assertMentions(assertThrows(ClosedResourceException.class, c::enqueueMarker), "closed");
        assertMentions(assertThrows(ClosedResourceException.class, () -> c.waitFor(ctx.createEvent())), "closed");
        assertThrows(ClosedResourceException.class, () -> stream().waitFor(c).get());
        c.close(); // idempotent
        assertStreamUsable(stream());
    }

    @Test
    void closedBufferIsRejected() {
        DeviceBuffer b = ctx.allocate(DType.I32, 16);
        b.close();
        assertRejected(ClosedResourceException.class, stream(), () -> stream().enqueueFill(b, 1), "destination", "closed");
        assertRejected(ClosedResourceException.class, stream(), () -> stream().enqueueCopy(b, HostData.of(new int[16])), "source", "closed");
        assertRejected(ClosedResourceException.class, stream(), () -> b.slice(0, 1), "closed");
        assertRejected(ClosedResourceException.class, stream(), b::mapToHost, "closed");
    }

    @Test
    void closedBufferAsKernelArgumentIsRejected() {
        DeviceBuffer b = ctx.allocate(DType.F32, 16);
        b.close();
        assertRejected(ClosedResourceException.class, stream(),
                () -> stream().enqueueLaunch(fn(TestKernels.SCALAR_ADD), LaunchConfig.of(1, 16), b, 16L, 1f), "arguments[0]", "closed");
    }

    @Test
    void closedHostBufferIsRejected() {
        HostBuffer h = ctx.allocateHost(DType.I32, 4);
        DeviceBuffer d = ctx.allocate(DType.I32, 4);
        h.close();
        assertRejected(ClosedResourceException.class, stream(), () -> stream().enqueueCopy(h, d), "source", "closed");
        assertRejected(ClosedResourceException.class, stream(), () -> stream().enqueueCopy(d, h), "destination", "closed");
        assertRejected(ClosedResourceException.class, stream(), () -> h.getInt(0), "closed");
    }

    @Test
    void closedEventIsRejected() {
        DeviceEvent e = ctx.createEvent();
        e.close();
        assertRejected(ClosedResourceException.class, stream(), () -> stream().enqueueRecord(e), "closed");
        assertRejected(ClosedResourceException.class, stream(), () -> stream().waitFor(e), "closed");
        assertRejected(ClosedResourceException.class, stream(), e::query, "closed");
    }

    @Test
    void closedFunctionIsRejected() {
        DeviceFunction f = ctx.compile(TestKernels.SCALAR_ADD);
        DeviceBuffer d = ctx.allocate(DType.F32, 4);
        f.close();
        assertRejected(ClosedResourceException.class, stream(),
                () -> stream().enqueueLaunch(f, LaunchConfig.of(1, 4), d, 4L, 1f), "closed");
    }

    // ---------------------------------------------------------------- launch limits

    private void launchRejected(String argument, LaunchConfig config, String... mentions) {
        DeviceBuffer d = ctx.allocate(DType.I32, 4);
        assertInvalid(argument, stream(), () -> stream().enqueueLaunch(fn(TestKernels.MUL_ADD), config, d, 4L, 1, 1), mentions);
    }

    @Test
    void gridAboveTheDeviceLimitIsRejected() {
        DeviceAttribute[] attrs = {DeviceAttribute.MAX_GRID_DIM_X, DeviceAttribute.MAX_GRID_DIM_Y, DeviceAttribute.MAX_GRID_DIM_Z};
        int checked = 0;
        for (int d = 0; d < 3; d++) {
            long max = ctx.attribute(attrs[d]);
            if (max >= Integer.MAX_VALUE) {
                continue; // no int dimension exceeds it
            }
            int[] g = {1, 1, 1};
            g[d] = (int) max + 1;
            launchRejected("grid", LaunchConfig.of(Dim.of(g[0], g[1], g[2]), Dim.of(1)), String.valueOf(max + 1), String.valueOf(max));
            checked++;
        }
        Assumptions.assumeTrue(checked > 0, "MAX_GRID_DIM_X, _Y and _Z are all Integer.MAX_VALUE: no grid exceeds them");
    }

    @Test
    void blockXAboveTheDeviceLimitIsRejected() {
        long max = ctx.attribute(DeviceAttribute.MAX_BLOCK_DIM_X);
        launchRejected("block", LaunchConfig.of(Dim.of(1), Dim.of((int) max + 1)), String.valueOf(max + 1), String.valueOf(max));
    }

    @Test
    void blockZAboveTheDeviceLimitIsRejected() {
        long max = ctx.attribute(DeviceAttribute.MAX_BLOCK_DIM_Z);
        launchRejected("block", LaunchConfig.of(Dim.of(1), Dim.of(1, 1, (int) max + 1)), String.valueOf(max + 1), String.valueOf(max));
    }

    @Test
    void blockWithMoreThreadsThanTheDeviceAllowsIsRejected() {
        long maxThreads = ctx.attribute(DeviceAttribute.MAX_THREADS_PER_BLOCK);
        long maxX = ctx.attribute(DeviceAttribute.MAX_BLOCK_DIM_X);
        long maxY = ctx.attribute(DeviceAttribute.MAX_BLOCK_DIM_Y);
        long y = Math.min(maxY, maxThreads / maxX + 1);
        Assumptions.assumeTrue(maxX * y > maxThreads,
                "MAX_BLOCK_DIM_X * MAX_BLOCK_DIM_Y does not exceed MAX_THREADS_PER_BLOCK on this device");
        launchRejected("block", LaunchConfig.of(Dim.of(1), Dim.of((int) maxX, (int) y)), String.valueOf(maxX * y),
                String.valueOf(maxThreads));
    }

    @Test
    void sharedMemoryAboveTheDeviceLimitIsRejected() {
        long limit = Math.max(ctx.attribute(DeviceAttribute.MAX_SHARED_MEMORY_PER_BLOCK),
                attributeOr(ctx, DeviceAttribute.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 0));
        launchRejected("sharedMemoryBytes", LaunchConfig.of(1, 1).withSharedMemory(limit + 1), String.valueOf(limit + 1),
                String.valueOf(limit));
    }

    @Test
    void clusterThatDoesNotDivideTheGridIsRejected() {
        Assumptions.assumeTrue(attributeOr(ctx, DeviceAttribute.CLUSTER_LAUNCH, 0) != 0,
                "CLUSTER_LAUNCH attribute is 0: clusters are refused before their dims are checked");
        launchRejected("cluster", LaunchConfig.of(5, 4).withCluster(Dim.of(2)), "(2, 1, 1)", "(5, 1, 1)");
    }

    @Test
    void negativeSharedMemoryIsRejected() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> LaunchConfig.of(1, 1).withSharedMemory(-1));
        assertEquals("sharedMemoryBytes", e.argument());
        assertMentions(e, "-1");
    }

    @Test
    void dimBelowOneIsRejected() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> Dim.of(4, 0));
        assertEquals("dim", e.argument());
        assertMentions(e, "(4, 0, 1)", "below 1");
    }

    // ---------------------------------------------------------------- kernel arguments

    @Test
    void bufferAtAnOffsetNotAlignedToItsElementsIsRejectedAsAKernelArgument() {
        // A GPU's float load from an odd address faults and the fault ends the context: refused at the call instead.
        DeviceBuffer bytes = ctx.allocate(DType.U8, 40);
        DeviceBuffer odd = bytes.slice(1, 16).reinterpret(DType.F32);
        assertInvalid("arguments[0] (float* vector)", stream(),
                () -> stream().enqueueLaunch(fn(TestKernels.SCALAR_ADD), LaunchConfig.of(1, 4), odd, 4L, 1f), "byte 1", "4 bytes");
        DeviceBuffer half = bytes.slice(2, 16).reinterpret(DType.F32);
        assertInvalid("arguments[0] (float* vector)", stream(),
                () -> stream().enqueueLaunch(fn(TestKernels.SCALAR_ADD), LaunchConfig.of(1, 4), half, 4L, 1f), "byte 2");
        DeviceBuffer aligned = bytes.slice(8, 16).reinterpret(DType.F32);
        await(stream().enqueueFill(aligned, 1f));
        await(stream().enqueueLaunch(fn(TestKernels.SCALAR_ADD), LaunchConfig.of(1, 4), aligned, 4L, 1f));
        float[] out = new float[4];
        await(stream().enqueueCopy(aligned, HostData.of(out)));
        assertArrayEquals(new float[] {2f, 2f, 2f, 2f}, out);
        await(stream().enqueueCopy(HostData.of(new float[] {1, 2, 3, 4}), odd)); // copies take any offset
    }

    @Test
    void argumentCountMismatchIsRejected() {
        DeviceBuffer d = ctx.allocate(DType.F32, 4);
        assertInvalid("arguments", stream(),
                () -> stream().enqueueLaunch(fn(TestKernels.SCALAR_ADD), LaunchConfig.of(1, 4), d, 4L), "3", "2", "scalar_add");
    }

    @Test
    void numberWhereAPointerIsDeclaredIsRejected() {
        assertInvalid("arguments[0] (float* vector)", stream(),
                () -> stream().enqueueLaunch(fn(TestKernels.SCALAR_ADD), LaunchConfig.of(1, 4), 5, 4L, 1f), "DeviceBuffer", "5");
    }

    @Test
    void bufferWhereANumberIsDeclaredIsRejected() {
        DeviceBuffer d = ctx.allocate(DType.F32, 4);
        assertInvalid("arguments[1] (long long size)", stream(),
                () -> stream().enqueueLaunch(fn(TestKernels.SCALAR_ADD), LaunchConfig.of(1, 4), d, d, 1f), "number", "I64");
    }

    @Test
    void bufferOfTheWrongElementTypeIsRejected() {
        DeviceBuffer d = ctx.allocate(DType.I32, 4);
        assertInvalid("arguments[0] (float* vector)", stream(),
                () -> stream().enqueueLaunch(fn(TestKernels.SCALAR_ADD), LaunchConfig.of(1, 4), d, 4L, 1f), "I32", "F32");
    }

    @Test
    void numberOutOfRangeForASignedCharIsRejected() {
        assertInvalid("arguments[0] (signed char a)", stream(),
                () -> stream().enqueueLaunch(fn(TestKernels.STORE_SCALARS), LaunchConfig.of(1, 1), storeScalarsArgs(0, 300)),
                "300", "I8");
    }

    @Test
    void negativeNumberForAnUnsignedIntIsRejected() {
        assertInvalid("arguments[5] (unsigned int f)", stream(),
                () -> stream().enqueueLaunch(fn(TestKernels.STORE_SCALARS), LaunchConfig.of(1, 1), storeScalarsArgs(5, -1)),
                "-1", "U32");
    }

    @Test
    void floatingPointNumberForAnIntIsRejected() {
        assertInvalid("arguments[4] (int e)", stream(),
                () -> stream().enqueueLaunch(fn(TestKernels.STORE_SCALARS), LaunchConfig.of(1, 1), storeScalarsArgs(4, 1.5)),
                "1.5", "floating-point");
    }

    @Test
    void nonNumberForAScalarIsRejected() {
        assertInvalid("arguments[6] (long long g)", stream(),
                () -> stream().enqueueLaunch(fn(TestKernels.STORE_SCALARS), LaunchConfig.of(1, 1), storeScalarsArgs(6, "7")),
                "String", "I64");
    }

    @Test
    void nullKernelArgumentIsRejected() {
        assertInvalid("arguments[0] (float* vector)", stream(),
                () -> stream().enqueueLaunch(fn(TestKernels.SCALAR_ADD), LaunchConfig.of(1, 4), null, 4L, 1f), "null");
    }

    // ---------------------------------------------------------------- values

    @Test
    void memsetValueThatIsNotAByteIsRejected() {
        DeviceBuffer d = ctx.allocate(DType.U8, 4);
        assertInvalid("byteValue", stream(), () -> stream().enqueueMemset(d, 256), "256", "byte");
    }

    @Test
    void fillValueOutOfTheElementTypesRangeIsRejected() {
        DeviceBuffer d = ctx.allocate(DType.U8, 4);
        assertInvalid("value", stream(), () -> stream().enqueueFill(d, 300), "300", "U8");
    }

    @Test
    void fillOfAnIntegerBufferWithAFractionIsRejected() {
        DeviceBuffer d = ctx.allocate(DType.I64, 4);
        assertInvalid("value", stream(), () -> stream().enqueueFill(d, 0.5), "0.5", "I64");
    }

    // ---------------------------------------------------------------- pitched 2-D copies

    @Test
    void copy2DOfZeroOrNegativeSizesIsRejected() {
        DeviceBuffer d = ctx.allocate(DType.F32, 64);
        HostData h = HostData.of(new float[64]);
        assertInvalid("width", stream(), () -> stream().enqueueCopy2D(h, 8, d, 8, 0, 4), "0", "positive");
        assertInvalid("height", stream(), () -> stream().enqueueCopy2D(h, 8, d, 8, 4, -2), "-2", "positive");
        assertInvalid("width", stream(), () -> stream().enqueueCopy2D(d, 8, h, 8, -1, 4), "-1", "positive");
        assertInvalid("height", stream(), () -> stream().enqueueCopy2D(d, 8, d.slice(0, 32), 8, 4, 0), "0", "positive");
        assertInvalid("sourcePitch", stream(), () -> stream().enqueueCopy2D(h, -8, d, 8, 4, 4), "-8", "width 4");
    }

    @Test
    void copy2DWithAPitchLessThanTheWidthIsRejected() {
        DeviceBuffer d = ctx.allocate(DType.I32, 64);
        HostData h = HostData.of(new int[64]);
        assertInvalid("sourcePitch", stream(), () -> stream().enqueueCopy2D(h, 3, d, 8, 4, 4), "3", "less than the width 4");
        assertInvalid("destinationPitch", stream(), () -> stream().enqueueCopy2D(d, 8, h, 5, 6, 2), "5", "width 6");
        assertInvalid("destinationPitch", stream(), () -> stream().enqueueCopy2D(d, 8, d.slice(0, 8), 7, 8, 1), "7", "width 8");
    }

    @Test
    void copy2DRectanglePastTheEndIsRejected() {
        DeviceBuffer d = ctx.allocate(DType.I16, 40);
        HostData h = HostData.of(new short[40]);
        // 4 rows of 6, 10 apart: the extent is 3 * 10 + 6 = 36 elements; from element 8 only 32 remain
        assertInvalid("source", stream(), () -> stream().enqueueCopy2D(HostData.of(new short[40], 8, 32), 10, d, 10, 6, 4),
                "4 rows of 6", "10 elements apart", "spans 36", "of 32 elements");
        assertInvalid("destination", stream(), () -> stream().enqueueCopy2D(h, 10, d.slice(8, 32), 10, 6, 4), "spans 36",
                "of 32 elements");
        assertInvalid("source", stream(), () -> stream().enqueueCopy2D(d.slice(8, 32), 10, h, 10, 6, 4), "spans 36");
        assertInvalid("destination", stream(), () -> stream().enqueueCopy2D(d, 10, HostData.of(new short[40], 5, 35), 10, 6, 4),
                "spans 36", "of 35 elements");
        assertInvalid("destination", stream(), () -> stream().enqueueCopy2D(d, 10, ctx.allocate(DType.I16, 40), 12, 6, 4),
                "12 elements apart", "spans 42", "of 40 elements");
        // untyped bytes count in the device buffer's elements: 70 bytes are 35 I16
        assertInvalid("source", stream(), () -> stream().enqueueCopy2D(HostData.of(MemorySegment.ofArray(new byte[70])), 10, d,
                10, 6, 4), "of 35 elements");
    }

    @Test
    void copy2DWhoseExtentOverflowsIsRejected() {
        DeviceBuffer d = ctx.allocate(DType.F64, 16);
        long huge = Long.MAX_VALUE / 4;
        assertInvalid("sourcePitch", stream(), () -> stream().enqueueCopy2D(HostData.of(new double[16]), huge, d, 4, 4, 3),
                "height 3", String.valueOf(huge), "overflows");
        assertInvalid("destinationPitch", stream(), () -> stream().enqueueCopy2D(d, 4, d.slice(0, 4), huge, 4, 1 << 20),
                "overflows");
        // the element count fits a long, its bytes do not
        assertInvalid("sourcePitch", stream(), () -> stream().enqueueCopy2D(d, Long.MAX_VALUE / 8, d, 4, 4, 2), "overflows");
    }

    @Test
    void copy2DBetweenElementTypesIsRejected() {
        DeviceBuffer f = ctx.allocate(DType.F32, 16);
        DeviceBuffer i = ctx.allocate(DType.I32, 16);
        HostBuffer h = ctx.allocateHost(DType.I32, 16);
        assertInvalid("destination", stream(), () -> stream().enqueueCopy2D(f, 4, i, 4, 4, 4), "I32", "F32", "reinterpret");
        assertInvalid("destination", stream(), () -> stream().enqueueCopy2D(h, 4, f, 4, 4, 4), "F32", "I32");
        assertInvalid("destination", stream(), () -> stream().enqueueCopy2D(f, 4, h, 4, 4, 4), "I32", "F32");
        assertInvalid("destination", stream(), () -> stream().enqueueCopy2D(HostData.of(new int[16]), 4, f, 4, 4, 4), "F32", "I32");
        assertInvalid("source", stream(), () -> stream().enqueueCopy2D(f, 4, HostData.of(new long[16]), 4, 4, 2), "F32", "I64");
    }

    @Test
    void copy2DOfClosedBuffersIsRejected() {
        DeviceBuffer d = ctx.allocate(DType.I32, 16);
        DeviceBuffer closed = ctx.allocate(DType.I32, 16);
        HostBuffer h = ctx.allocateHost(DType.I32, 16);
        closed.close();
        h.close();
        assertRejected(ClosedResourceException.class, stream(), () -> stream().enqueueCopy2D(closed, 4, d, 4, 4, 4), "source", "closed");
        assertRejected(ClosedResourceException.class, stream(), () -> stream().enqueueCopy2D(d, 4, closed, 4, 4, 4), "destination",
                "closed");
        assertRejected(ClosedResourceException.class, stream(), () -> stream().enqueueCopy2D(HostData.of(new int[16]), 4, closed, 4, 4, 4),
                "destination", "closed");
        assertRejected(ClosedResourceException.class, stream(), () -> stream().enqueueCopy2D(h, 4, d, 4, 4, 4), "source", "closed");
        assertRejected(ClosedResourceException.class, stream(), () -> stream().enqueueCopy2D(d, 4, h, 4, 4, 4), "destination", "closed");
    }

    @Test
    void copy2DWithBuffersOfAnotherContextIsRejected() {
        DeviceContext o = otherContext();
        DeviceBuffer mine = ctx.allocate(DType.I32, 16);
        DeviceBuffer theirs = o.allocate(DType.I32, 16);
        HostBuffer theirHost = o.allocateHost(DType.I32, 16);
        assertInvalid("destination", stream(), () -> stream().enqueueCopy2D(mine, 4, theirs, 4, 4, 4), "another context");
        assertInvalid("source", stream(), () -> stream().enqueueCopy2D(theirs, 4, mine, 4, 4, 4), "another context");
        if (!ctx.sharesPinnedMemoryWith(o)) {
            assertInvalid("source", stream(), () -> stream().enqueueCopy2D(theirHost, 4, mine, 4, 4, 4), "sharesPinnedMemoryWith");
            assertInvalid("destination", stream(), () -> stream().enqueueCopy2D(mine, 4, theirHost, 4, 4, 4),
                    "sharesPinnedMemoryWith");
        }
    }

    @Test
    void copy2DIntoReadOnlyOrNullHostMemoryIsRejected() {
        DeviceBuffer d = ctx.allocate(DType.I32, 16);
        ByteBuffer ro = ByteBuffer.allocate(64).asReadOnlyBuffer();
        assertInvalid("destination", stream(), () -> stream().enqueueCopy2D(d, 4, HostData.of(ro), 4, 4, 4), "read-only");
        assertInvalid("source", stream(), () -> stream().enqueueCopy2D((HostData) null, 4, d, 4, 4, 4), "null");
        assertInvalid("destination", stream(), () -> stream().enqueueCopy2D(d, 4, (HostData) null, 4, 4, 4), "null");
        await(stream().enqueueCopy2D(HostData.of(ro), 4, d, 4, 4, 4)); // read-only is refused as a destination only
    }

    @Test
    void readOnlyDestinationsAreRejected() {
        DeviceBuffer d = ctx.allocate(DType.I32, 4);
        ByteBuffer ro = ByteBuffer.allocate(16).asReadOnlyBuffer();
        assertInvalid("destination", stream(), () -> stream().enqueueCopy(d, HostData.of(ro)), "read-only");
        assertInvalid("destination", stream(), () -> stream().enqueueCopy(d, HostData.of(MemorySegment.ofArray(new int[4]).asReadOnly())),
                "read-only");
        await(stream().enqueueCopy(HostData.of(ro), d)); // read-only is refused as a destination only
    }

    @Test
    void segmentsOfConfinedArenasAreRejected() {
        DeviceBuffer d = ctx.allocate(DType.I32, 4);
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment confined = arena.allocate(16);
            assertInvalid("destination", stream(), () -> stream().enqueueCopy(d, HostData.of(confined)), "confined", "Arena.ofShared()");
            assertInvalid("source", stream(), () -> stream().enqueueCopy(HostData.of(confined), d), "confined", "Arena.ofShared()");
            assertInvalid("segment", stream(), () -> ctx.registerHost(confined, DType.I32), "confined", "Arena.ofShared()");
        }
    }

    @Test
    void freeingASliceIsRejected() {
        DeviceBuffer d = stream().enqueueAllocate(DType.I32, 8);
        assertInvalid("buffer", stream(), () -> stream().enqueueFree(d.slice(1, 2)), "slice");
        assertInvalid("buffer", stream(), () -> stream().enqueueFree(d.slice(0, 8)), "owns no memory");
        assertInvalid("buffer", stream(), () -> stream().enqueueFree(d.reinterpret(DType.F32)), "owns no memory");
        assertTrue(!d.isClosed());
    }

    @Test
    void reinterpretToATypeThatDoesNotDivideTheSizeIsRejected() {
        DeviceBuffer d = ctx.allocate(DType.U8, 3);
        assertInvalid("newType", stream(), () -> d.reinterpret(DType.F32), "3 bytes", "F32");
    }

    @Test
    void nullArgumentsAreRejected() {
        DeviceBuffer d = ctx.allocate(DType.I32, 4);
        assertInvalid("source", stream(), () -> stream().enqueueCopy((HostData) null, d), "null");
        assertInvalid("destination", stream(), () -> stream().enqueueCopy(d, (HostData) null), "null");
        assertInvalid("array", stream(), () -> HostData.of((int[]) null), "null");
        assertInvalid("array", stream(), () -> HostData.of((float[]) null, 0, 1), "null");
        assertInvalid("buffer", stream(), () -> HostData.of((ByteBuffer) null), "null");
        assertInvalid("segment", stream(), () -> HostData.of((MemorySegment) null), "null");
        assertInvalid("event", stream(), () -> stream().waitFor((DeviceEvent) null), "null");
        assertInvalid("value", stream(), () -> stream().enqueueFill(d, null), "null");
    }

    @Test
    void heapMemoryCannotBeRegistered() {
        assertInvalid("segment", ctx.stream(), () -> ctx.registerHost(MemorySegment.ofArray(new int[4]), DType.I32), "heap");
    }

    // ---------------------------------------------------------------- objects of the context

    @Test
    void streamPriorityOutsideTheRangeIsRejected() {
        PriorityRange r = ctx.streamPriorityRange();
        int bad = r.least() + 1;
        assertInvalid("priority", ctx.stream(), () -> ctx.createStream(StreamOptions.defaults().withPriority(bad)),
                String.valueOf(bad), String.valueOf(r.least()), String.valueOf(r.greatest()));
    }

    @Test
    void interprocessTimingEventIsRejected() {
        assertInvalid("flags", ctx.stream(), () -> ctx.createEvent(EventFlag.INTERPROCESS, EventFlag.TIMING), "INTERPROCESS", "TIMING");
    }

    @Test
    void getAsDoubleOutsideTheBufferNamesTheIndex() {
        // It named "bufferOffset" or "count", arguments it does not have, where the typed accessors name "index".
        HostBuffer h = ctx.allocateHost(DType.U16, 4);
        assertInvalid("index", stream(), () -> h.getAsDouble(-1), "-1", "4 elements");
        assertInvalid("index", stream(), () -> h.getAsDouble(4), "4", "4 elements");
        assertInvalid("index", stream(), () -> h.getAsDouble(Long.MAX_VALUE), "9223372036854775807");
        h.setShort(3, (short) -1);
        assertEquals(65535.0, h.getAsDouble(3));
    }

    @Test
    void nullEventFlagIsRejected() {
        assertInvalid("flags", ctx.stream(), () -> ctx.createEvent(EventFlag.TIMING, null), "element 1 of 2", "null");
    }

    @Test
    void typedAccessorsOfAViewAtAnOddAddressWork() {
        // A byte slice at offset 1 viewed as wider elements, as a view of Arrow's byte buffers may be: the accessors
        // read and write it like a copy does instead of failing on the alignment of the address.
        HostBuffer ints = ctx.allocateHost(DType.I8, 24).slice(1, 16).asType(DType.I32);
        ints.setInt(1, 0x01020304);
        assertEquals(0x01020304, ints.getInt(1));
        HostBuffer longs = ctx.allocateHost(DType.I8, 24).slice(1, 16).asType(DType.I64);
        longs.setLong(1, -7L);
        assertEquals(-7L, longs.getLong(1));
        HostBuffer floats = ctx.allocateHost(DType.I8, 24).slice(3, 8).asType(DType.F32);
        floats.setFloat(0, 1.5f);
        assertEquals(1.5f, floats.getFloat(0));
        HostBuffer doubles = ctx.allocateHost(DType.I8, 24).slice(1, 8).asType(DType.F64);
        doubles.setDouble(0, 2.5);
        assertEquals(2.5, doubles.getDouble(0));
        HostBuffer shorts = ctx.allocateHost(DType.I8, 24).slice(1, 2).asType(DType.I16);
        shorts.setShort(0, (short) -3);
        assertEquals((short) -3, shorts.getShort(0));
        ints.setInt(0, 5);
        ints.setInt(2, 6);
        ints.setInt(3, 7);
        DeviceBuffer d = ctx.allocate(DType.I32, 4);
        await(stream().enqueueCopy(ints, d));
        assertArrayEquals(new int[] {5, 0x01020304, 6, 7}, readInts(stream(), d));
    }

    @Test
    void negativeLimitIsRejected() {
        assertInvalid("value", ctx.stream(), () -> ctx.setLimit(Limit.STACK_SIZE, -1), "-1");
    }

    @Test
    void zeroIterationsOfExecutionTimeAreRejected() {
        assertInvalid("iterations", ctx.stream(), () -> ctx.executionTime(0, (st, i) -> { }), "0");
    }

    // ---------------------------------------------------------------- opening

    @Test
    void unknownBackendNameIsRejected() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> DeviceContext.open("nosuch", 0));
        assertEquals("api", e.argument());
        assertMentions(e, "nosuch", "cuda", "hip", "cpu");
    }

    @Test
    void deviceIdBeyondTheDeviceCountIsRejected() {
        String api = target().backendName();
        int count = DeviceContext.deviceCount(api);
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> DeviceContext.open(api, count));
        assertEquals("deviceId", e.argument());
        assertMentions(e, String.valueOf(count), count + " device");
        assertStreamUsable(ctx.stream());
    }

    @Test
    void negativeDeviceIdIsRejected() {
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> DeviceContext.open(target().backendName(), -1));
        assertEquals("deviceId", e.argument());
        assertMentions(e, "-1");
    }
}
