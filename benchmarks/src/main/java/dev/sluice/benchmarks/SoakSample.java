package dev.sluice.benchmarks;

/**
 * One report line of the soak benchmark: what had been done by the end of an interval, and the state of the process
 * and the device at that moment.
 *
 * @param elapsedSeconds since the workers started
 * @param requests       requests served since the start
 * @param perSecond      requests per second over this interval
 * @param wrong          wrong results since the start
 * @param errors         requests that threw since the start
 * @param heapMiB        heap used right after {@link System#gc()}
 * @param threads        live platform threads
 * @param deviceMiB      device memory in use (total - free)
 * @param rssMiB         the process's resident memory, NaN where the system does not say
 * @param enqueueNs      median host nanoseconds per enqueue of this interval's probe batches
 */
record SoakSample(double elapsedSeconds, long requests, double perSecond, long wrong, long errors, double heapMiB,
        int threads, double deviceMiB, double rssMiB, double enqueueNs) {
}
