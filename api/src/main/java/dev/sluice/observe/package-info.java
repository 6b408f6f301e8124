/**
 * Internal: Sluice's recorders, which work from plain data (a stream's index and name, an operation's kind as a string,
 * bytes, times, labels) and never from the handles programs hold. Not part of the API that programs use: this package
 * is not exported by the module, and its classes may change or go in any release, with no compatibility promise.
 * <ul>
 * <li>{@link dev.sluice.observe.Tracer}: a traced context's device timeline, from timing events recorded around each
 * operation, resolved into {@link dev.sluice.TraceSpan}s as the operations' futures complete;
 * <li>{@link dev.sluice.observe.TraceFile}: those spans streamed to a file as they resolve;
 * <li>{@link dev.sluice.observe.ChromeTraceEvents} and {@link dev.sluice.observe.TraceSvg}: the spans in Chrome
 * trace-event JSON, with the identities that let files merge, and as an SVG timeline;
 * <li>{@link dev.sluice.observe.JfrEvents} and {@link dev.sluice.observe.DeviceOperation}: the JDK Flight Recorder
 * events.
 * </ul>
 * The public side, in {@code dev.sluice}, turns its handles into these plain values at each call.
 */
@NullMarked
package dev.sluice.observe;

import org.jspecify.annotations.NullMarked;
