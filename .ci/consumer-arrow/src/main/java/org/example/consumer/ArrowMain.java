package org.example.consumer;

import dev.sluice.DeviceContext;
import dev.sluice.DeviceStream;
import dev.sluice.arrow.ArrowColumns;
import dev.sluice.arrow.DeviceColumn;
import dev.sluice.arrow.PinnedAllocationFactory;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;

/** Arrow vectors in pinned memory to the device and back, then Arrow's own allocator, with arrow-memory-core only. */
public final class ArrowMain {

    private ArrowMain() {
    }

    public static void main(String[] args) {
        int n = 4096;
        try (DeviceContext ctx = DeviceContext.open();
             PinnedAllocationFactory pinned = PinnedAllocationFactory.of(ctx);
             RootAllocator allocator = pinned.newRootAllocator(Long.MAX_VALUE);
             Float4Vector x = new Float4Vector("x", allocator);
             Float4Vector y = new Float4Vector("y", allocator);
             DeviceStream s = ctx.createStream()) {
            x.allocateNew(n);
            for (int i = 0; i < n; i++) {
                x.set(i, i);
            }
            x.setValueCount(n);
            try (DeviceColumn dx = ArrowColumns.upload(s, x)) {
                ArrowColumns.download(s, dx, y).join();
            }
            for (int i = 0; i < n; i++) {
                if (y.get(i) != i) {
                    throw new IllegalStateException("y[" + i + "] = " + y.get(i));
                }
            }
        }
        try (RootAllocator plain = new RootAllocator(); IntVector v = new IntVector("v", plain)) {
            v.allocateNew(1);
            v.set(0, 7);
            v.setValueCount(1);
        }
        System.out.println("consumer-arrow: pinned and default allocators ok with arrow-vector and arrow-memory-core");
    }
}
