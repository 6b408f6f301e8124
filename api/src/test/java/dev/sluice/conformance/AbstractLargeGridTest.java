package dev.sluice.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.sluice.DType;
import dev.sluice.DeviceAttribute;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceStream;
import dev.sluice.Dim;
import dev.sluice.HostData;
import dev.sluice.Kernel;
import dev.sluice.KernelParam;
import dev.sluice.LaunchConfig;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Grids within the device's limits run whatever their number of blocks, more than 2^31 - 1 included: every block
 * gets its own index, none is lost to integer overflow. Only a few blocks of such a grid write, so it stays fast.
 */
public abstract class AbstractLargeGridTest extends ConformanceBase {

    /** A grid of 65536 x 32769 blocks: 2,147,549,184, just past 2^31 - 1. */
    private static final Dim HUGE = Dim.of(65536, 32769);

    /**
     * Block 0 writes out[0]; block 2^31 - 1 (the last one a signed int can number) and block 2^31 (the first one it
     * cannot) write their linear index to out[1] and out[2]; the last block writes its x, y, z to out[3..5].
     */
    static final Kernel MARK_FAR_BLOCKS = Kernel.named("mark_far_blocks")
            .param(KernelParam.pointer("out", DType.I64))
            .cudaSource("""
                    extern "C" __global__ void mark_far_blocks(long long* out) {
                        if (threadIdx.x != 0) return;
                        unsigned long long gx = gridDim.x, gy = gridDim.y;
                        unsigned long long linear = blockIdx.x + gx * (blockIdx.y + gy * blockIdx.z);
                        if (linear == 0ULL) out[0] = 1;
                        if (linear == 2147483647ULL) out[1] = (long long) linear;
                        if (linear == 2147483648ULL) out[2] = (long long) linear;
                        if (linear == gx * gy * gridDim.z - 1) {
                            out[3] = blockIdx.x; out[4] = blockIdx.y; out[5] = blockIdx.z;
                        }
                    }
                    """)
            .java(t -> {
                if (t.threadIdxX() != 0) {
                    return;
                }
                long gx = t.gridDim().x();
                long gy = t.gridDim().y();
                long linear = t.blockIdxX() + gx * (t.blockIdxY() + gy * t.blockIdxZ());
                if (linear == 0) {
                    t.pointer(0).setAtIndex(ValueLayout.JAVA_LONG, 0, 1);
                } else if (linear == Integer.MAX_VALUE) {
                    t.pointer(0).setAtIndex(ValueLayout.JAVA_LONG, 1, linear);
                } else if (linear == 1L << 31) {
                    t.pointer(0).setAtIndex(ValueLayout.JAVA_LONG, 2, linear);
                } else if (linear == t.gridDim().volume() - 1) {
                    t.pointer(0).setAtIndex(ValueLayout.JAVA_LONG, 3, t.blockIdxX());
                    t.pointer(0).setAtIndex(ValueLayout.JAVA_LONG, 4, t.blockIdxY());
                    t.pointer(0).setAtIndex(ValueLayout.JAVA_LONG, 5, t.blockIdxZ());
                }
            })
            .build();

    @Test
    void aGridOfMoreThanTwoToTheThirtyOneBlocksRunsEveryBlock() {
        Assumptions.assumeTrue(ctx.attribute(DeviceAttribute.MAX_GRID_DIM_X) >= HUGE.x()
                && ctx.attribute(DeviceAttribute.MAX_GRID_DIM_Y) >= HUGE.y(), () -> "MAX_GRID_DIM_X/Y below " + HUGE);
        DeviceStream s = ctx.createStream();
        DeviceBuffer out = ctx.allocate(DType.I64, 6);
        s.enqueueFill(out, -1L);
        await(s.enqueueLaunch(fn(MARK_FAR_BLOCKS), LaunchConfig.of(HUGE, Dim.of(1)), out));
        long[] got = new long[6];
        await(s.enqueueCopy(out, HostData.of(got)));
        assertArrayEquals(new long[] {1, Integer.MAX_VALUE, 1L << 31, HUGE.x() - 1, HUGE.y() - 1, 0}, got,
                "blocks 0, 2^31 - 1, 2^31 and the last (x, y, z) of " + HUGE);
        assertStreamUsable(s);
    }
}
