package dev.sluice.arrow;

import dev.sluice.Api;
import dev.sluice.DeviceContext;
import dev.sluice.DeviceStream;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the module's column and pipeline tests each open before a test and close after it: a context of the CPU
 * simulator, a stream of it, a {@link PinnedAllocationFactory} of it with a root allocator, and a root allocator of Arrow's
 * default memory. Closing the allocators is Arrow's leak check: a test that left a buffer allocated fails there.
 */
abstract class PinnedArrowTest {

    DeviceContext ctx;
    DeviceStream stream;
    PinnedAllocationFactory factory;
    RootAllocator pinned;
    /** Arrow's default (Unsafe) allocator: memory a context must stage or register. */
    RootAllocator plain;

    @BeforeEach
    void open() {
        ctx = DeviceContext.open(Api.CPU, 0);
        stream = ctx.createStream();
        factory = PinnedAllocationFactory.of(ctx);
        pinned = factory.newRootAllocator(Long.MAX_VALUE);
        plain = new RootAllocator();
    }

    @AfterEach
    void close() {
        pinned.close(); // Arrow's leak check: every input and result the test made was released
        factory.close();
        plain.close();
        ctx.close();
    }
}
