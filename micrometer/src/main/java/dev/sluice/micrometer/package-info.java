/**
 * Micrometer meters for Sluice: {@link dev.sluice.micrometer.DeviceMetrics} binds a {@link dev.sluice.DeviceContext}'s
 * operations, completion latency, copied bytes, device memory, compilations and faults, and
 * {@link dev.sluice.micrometer.PipelineMeters} a {@code GpuPipeline}'s lanes and chunks, to a {@code MeterRegistry}.
 * {@code docs/observability.md} lists every meter.
 */
@NullMarked
package dev.sluice.micrometer;

import org.jspecify.annotations.NullMarked;
