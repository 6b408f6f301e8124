package dev.sluice.arrow;

import dev.sluice.DeviceContext;
import dev.sluice.DeviceStream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;

/**
 * Run by {@link WithoutDefaultAllocatorTest} in a JVM of its own whose class path has {@code arrow-vector} and
 * {@code arrow-memory-core} but neither of Arrow's allocation managers: a pinned allocator's vectors go to the device
 * and back, and a plain {@code new RootAllocator()} works after it. Prints {@value #OK} and exits 0, else throws.
 */
final class WithoutDefaultAllocatorProbe {

    static final String OK = "probe: pinned and default allocators work without arrow-memory-unsafe or netty";

    private WithoutDefaultAllocatorProbe() {
    }

    public static void main(String[] args) throws Exception {
        for (String manager : new String[] {"org.apache.arrow.memory.unsafe.UnsafeAllocationManager",
                "org.apache.arrow.memory.netty.NettyAllocationManager"}) {
            try {
                Class.forName(manager);
                throw new IllegalStateException(manager + " is on the class path: the probe proves nothing");
            } catch (ClassNotFoundException expected) {
                // as a user's project with only the documented dependencies has it
            }
        }
        int n = 1000;
        try (DeviceContext ctx = DeviceContext.open("cpu", 0);
             PinnedAllocationFactory pinned = PinnedAllocationFactory.of(ctx);
             RootAllocator allocator = pinned.newRootAllocator(Long.MAX_VALUE);
             Float4Vector x = new Float4Vector("x", allocator);
             Float4Vector y = new Float4Vector("y", allocator);
             DeviceStream s = ctx.createStream()) {
            x.allocateNew(n);
            for (int i = 0; i < n; i++) {
                x.set(i, i * 0.5f);
            }
            x.setValueCount(n);
            try (DeviceColumn dx = ArrowColumns.upload(s, x)) {
                ArrowColumns.download(s, dx, y).join();
            }
            for (int i = 0; i < n; i++) {
                if (y.get(i) != i * 0.5f) {
                    throw new AssertionError("value " + i + " came back as " + y.get(i));
                }
            }
        }
        try (RootAllocator plain = new RootAllocator(); IntVector v = new IntVector("v", plain)) {
            v.allocateNew(4);
            v.set(3, 7);
            v.setValueCount(4);
            if (v.get(3) != 7) {
                throw new AssertionError("the default allocator's vector read " + v.get(3));
            }
        }
        System.out.println(OK);
    }
}
