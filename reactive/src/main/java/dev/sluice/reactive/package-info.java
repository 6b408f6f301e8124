/**
 * Project Reactor over Sluice. {@link dev.sluice.reactive.ReactiveStream} gives a cold {@code Mono} for every
 * enqueue operation of a {@link dev.sluice.DeviceStream}; {@link dev.sluice.reactive.DevicePlan} enqueues a
 * whole chain of operations, over one or several streams, on subscription, so that no host round trip
 * separates them, and {@link dev.sluice.reactive.RepeatedPlan} replays such a chain as one graph launch per run
 * of steps on one stream when it is subscribed again and again; {@link dev.sluice.reactive.GpuPipeline} moves a {@code Flux} of host chunks through
 * upload, kernels and download over N lanes, in order, with back-pressure; it keeps its lanes (streams,
 * device and pinned buffers) from one {@code process} call to the next until it is closed, and can download
 * results straight into the caller's pinned memory ({@link dev.sluice.reactive.ChunkTarget}).
 *
 * <p>Signals come from the context's completion thread ({@code sluice-completion-*}), which completes every
 * future of the context: keep work done directly in {@code map}/{@code doOnNext} short, and move longer work
 * off it with {@code publishOn(Schedulers.parallel())} (or {@code boundedElastic()} for blocking work).
 * Nothing in this package blocks; {@link dev.sluice.reactive.SluiceBlockHoundIntegration} tells BlockHound
 * which Sluice calls do.
 */
@NullMarked
package dev.sluice.reactive;

import org.jspecify.annotations.NullMarked;
