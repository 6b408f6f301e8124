package dev.sluice.cpu;

import dev.sluice.Api;
import dev.sluice.ContextOptions;
import dev.sluice.SluiceProperties;
import dev.sluice.spi.Backend;
import dev.sluice.spi.BackendProbe;
import dev.sluice.spi.ContextHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * The CPU simulator backend. It has {@code sluice.cpu.devices} devices (default 1), each with
 * {@code sluice.cpu.memoryBytes} bytes of device memory (default 4 GiB), so that out-of-memory and
 * device-id errors behave as on a GPU.
 */
public final class CpuBackend implements Backend {

    static final long DEFAULT_MEMORY = 4L << 30;

    /**
     * Called by {@link java.util.ServiceLoader}, which finds this backend through {@code META-INF/services};
     * applications open its devices with {@link dev.sluice.DeviceContext#open} rather than making one.
     */
    public CpuBackend() {
    }

    @Override
    public String name() {
        return Api.CPU.id();
    }

    static int deviceCount() {
        return Integer.getInteger(SluiceProperties.CPU_DEVICES, 1);
    }

    static long memoryBytes() {
        return Long.getLong(SluiceProperties.CPU_MEMORY_BYTES, DEFAULT_MEMORY);
    }

    @Override
    public BackendProbe probe() {
        int n = deviceCount();
        List<String> devices = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            devices.add(i + ": " + CpuContext.deviceName() + ", " + (memoryBytes() >> 20) + " MiB simulated device memory");
        }
        return new BackendProbe(true, n, "Java " + Runtime.version(), List.of(), devices);
    }

    @Override
    public ContextHandle open(int deviceId, ContextOptions options) {
        return new CpuContext(deviceId, memoryBytes(), options.contextFlags(), CpuFaults.take());
    }
}
