/**
 * Internal: Sluice's engine, what the handles of {@code dev.sluice} delegate to once they have checked their arguments.
 * Not part of the API that programs use: this package is not exported by the module, and its classes may change or go
 * in any release, with no compatibility promise. It never names a public handle: where it holds one, it holds it as
 * an interface it declares and the handle implements, {@link dev.sluice.engine.PublicStream} (a stream) or
 * {@link dev.sluice.engine.PublicMemory} (a buffer).
 * <ul>
 * <li>{@link dev.sluice.engine.ContextRuntime}: a context's completion-thread guards, its streams and memory, what it
 * owns ({@code ContextResources}, each a {@code ContextOwned}) and its close sequence ({@code CloseHandshake},
 * {@code LeftBehind}), over {@code ContextState}: the fault state, options, completion engine and host executor that the
 * parts below the streams read, so that they do not name the streams;
 * <li>{@link dev.sluice.engine.StreamEnqueuer}: a stream's enqueue path, one for every device operation (a copy, fill or
 * launch as a {@code Work} value: claim, order after other streams, hand off, mark, note uses), capture and the replay
 * of a captured graph, with {@code StreamClaims} for ownership and automatic ordering, {@code StreamWaits} for records,
 * waits, markers and host work, and {@code StreamMemory} for allocations and frees in stream order;
 * <li>{@link dev.sluice.engine.StreamOrder}, {@code CompletionQueue} and {@code CompletionPoller}: the ordered core of a
 * stream (its lock, sequence, marker groups, queue of pending futures and completed sequence) and the completion
 * thread that polls each core's oldest marker; {@code OwnLine} keeps the fields the two threads write apart;
 * <li>{@link dev.sluice.engine.Operation}: the engine's half of every future, which the public future extends
 * ({@code InternalOperation} for those the engine enqueues for itself); {@link dev.sluice.engine.Outcome}: what beside
 * the device can fail an operation;
 * <li>{@link dev.sluice.engine.Allocation}, {@link dev.sluice.engine.HostAllocation} ({@code OwnedMemory}),
 * {@link dev.sluice.engine.Region} and {@code UseTracker}: memory, the views of it operations use, and the uses not
 * finished yet ({@code Pitched}: the shape of a 2-D copy); {@link dev.sluice.engine.OwnedHandle}: an event's or
 * function's backend object;
 * {@link dev.sluice.engine.LeakDetector}: the release of what became unreachable while open;
 * <li>{@link dev.sluice.engine.HoldingStream}: work held on the host behind a wait the device cannot do;
 * <li>{@link dev.sluice.engine.CapturedGraph}: a captured graph ({@code GraphCapture} while it is captured), what its
 * replays use and keep, and their host steps ({@code GraphHostSteps});
 * <li>{@link dev.sluice.engine.ReplayedWork}: repeated work, a {@code Recording} of each call's steps launched as one
 * graph, with {@code FusedLaunches} running consecutive launches of kernels that declare a
 * {@link dev.sluice.Kernel.Fusion} as one kernel: the engine reads that declaration from the launched kernel and never
 * names the kernel language, which makes it.
 * </ul>
 * The jcstress tests of the lock-free parts reach them through {@code StressProbe}, which lives in the api module's test
 * sources (its test-jar), not here. See docs/architecture.md, "Layers", for the rule on what may import what.
 */
@NullMarked
package dev.sluice.engine;

import org.jspecify.annotations.NullMarked;
