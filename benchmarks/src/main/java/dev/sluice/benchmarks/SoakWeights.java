package dev.sluice.benchmarks;

import dev.sluice.DType;
import dev.sluice.DeviceBuffer;
import dev.sluice.DeviceContext;
import dev.sluice.HostData;
import java.util.SplittableRandom;

/**
 * The long-lived device buffers of the soak benchmark, a model's weights and biases: allocated and uploaded once, read
 * by every request of every thread for the whole run, never written after the upload. The host keeps its own copy
 * to compute the expected results.
 */
final class SoakWeights implements AutoCloseable {

    final int[] hostWeights;
    final int[] hostBias;
    final DeviceBuffer weights;
    final DeviceBuffer bias;

    /** {@code elements} weights and as many biases, drawn from a fixed seed so that every run uses the same ones. */
    SoakWeights(DeviceContext ctx, int elements) {
        SplittableRandom random = new SplittableRandom(0x5EED);
        hostWeights = random.ints(elements, 0, SoakKernel.VALUE_BOUND).toArray();
        hostBias = random.ints(elements, 0, SoakKernel.VALUE_BOUND).toArray();
        weights = ctx.allocate(DType.I32, elements);
        bias = ctx.allocate(DType.I32, elements);
        ctx.stream().enqueueCopy(HostData.of(hostWeights), weights);
        ctx.stream().enqueueCopy(HostData.of(hostBias), bias).join();
    }

    /** Elements per buffer (the kernel's {@code wn}). */
    long elements() {
        return hostWeights.length;
    }

    /** Device bytes held by the weights and biases. */
    long deviceBytes() {
        return weights.byteSize() + bias.byteSize();
    }

    @Override
    public void close() {
        weights.close();
        bias.close();
    }
}
