package dev.sluice.benchmarks;

import dev.sluice.ContextOptions;
import dev.sluice.DeviceContext;
import dev.sluice.WaitStrategy;
import java.util.Locale;

/** What the benchmarks share: how they open their context. */
final class Bench {

    private Bench() {
    }

    /**
     * Opens device 0 of the backend {@link DeviceContext#open()} picks: {@code -Dsluice.api=cuda|hip|cpu} (or
     * {@code SLUICE_API}) names one, else the best present (CUDA, HIP, then the CPU simulator).
     */
    static DeviceContext open(boolean tracing, String waitStrategy) {
        ContextOptions o = ContextOptions.defaults()
                .withWaitStrategy(WaitStrategy.valueOf(waitStrategy.toUpperCase(Locale.ROOT)))
                .withTracing(tracing);
        return DeviceContext.open(o);
    }

    static DeviceContext open(boolean tracing) {
        return open(tracing, WaitStrategy.PARK.name());
    }
}
