/**
 * Internal: Sluice's engine, what the handles of {@code dev.sluice} delegate to once they have checked their arguments.
 * Not part of the API that programs use: this package is not exported by the module, and its classes may change or go
 * in any release, with no compatibility promise. It never names a public handle.
 * <ul>
 * <li>{@link dev.sluice.engine.ContextCore}: a context's fault state, completion-thread guards, host executor, what it
 * owns ({@code ContextResources}) and its close sequence ({@code CloseHandshake}, {@code LeftBehind});
 * <li>{@link dev.sluice.engine.StreamEngine}: a stream's enqueue protocol around every operation (copies, fills,
 * launches, records and waits, host work, capture), with {@code StreamClaims} for ownership and automatic ordering;
 * <li>{@link dev.sluice.engine.StreamCore} and {@code CompletionEngine}: the ordered core of a stream (its lock,
 * sequence, marker groups, completion queue and completed sequence) and the completion thread;
 * <li>{@link dev.sluice.engine.Operation}: the engine's half of every future, which the public future extends;
 * {@link dev.sluice.engine.Outcome}: what beside the device can fail an operation;
 * <li>{@link dev.sluice.engine.Allocation}, {@link dev.sluice.engine.HostAllocation}, {@link dev.sluice.engine.Region}
 * and {@code UseTracker}: memory, the views of it operations use, and the uses not finished yet;
 * <li>{@link dev.sluice.engine.HoldingStream}: work held on the host behind a wait the device cannot do;
 * <li>{@link dev.sluice.engine.CapturedGraph}: a captured graph, its replays and their host steps.
 * </ul>
 * See docs/architecture.md, "Layers", for the rule on what may import what.
 */
@NullMarked
package dev.sluice.engine;

import org.jspecify.annotations.NullMarked;
