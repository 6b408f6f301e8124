package dev.sluice.benchmarks;

import java.util.concurrent.atomic.LongAdder;

/**
 * What the soak benchmark's workers have done so far, counted by all of them at once: requests served, results that
 * differed from the host's, requests that threw, and how often each of the occasional variants ran.
 */
final class SoakTally {

    final LongAdder requests = new LongAdder();
    final LongAdder wrong = new LongAdder();
    final LongAdder errors = new LongAdder();
    /** Requests whose upload and download went through the worker's pinned staging buffer instead of Java arrays. */
    final LongAdder pinned = new LongAdder();
    /** Requests whose device buffers were allocated and freed in stream order instead of the worker's own. */
    final LongAdder streamOrdered = new LongAdder();
    /** Futures cancelled before their stream was closed ({@code cancel} returned true: the future was not done yet). */
    final LongAdder cancelled = new LongAdder();
    /** Cancellations asked for that came too late: the future had completed already. */
    final LongAdder cancelTooLate = new LongAdder();
}
