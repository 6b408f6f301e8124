package dev.sluice.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The soak benchmark's verdict: the first interval after the warm-up against the last. Heap, threads and device memory
 * must stay flat (the last within an absolute tolerance of the baseline: they settle at a level and wander around it
 * by garbage collection and pooling, so a relative bound would be too loose for small figures and too tight for none),
 * the per-enqueue cost must not grow (last / baseline within a ratio), and no result may be wrong and no request
 * may fail.
 *
 * @param heapMiB      heap growth allowed
 * @param threads      growth in live threads allowed
 * @param deviceMiB    growth in device memory in use allowed
 * @param costRatio    last / baseline per-enqueue cost allowed
 */
record SoakVerdict(double heapMiB, int threads, double deviceMiB, double costRatio) {

    /** Lines that explain the verdict, one per figure checked, then {@code verdict=PASS} or {@code verdict=FAIL}. */
    List<String> judge(SoakSample baseline, SoakSample last) {
        List<String> lines = new ArrayList<>();
        boolean pass = true;
        pass &= grew(lines, "heap after GC", "MiB", baseline.heapMiB(), last.heapMiB(), heapMiB);
        pass &= grew(lines, "live threads", "", baseline.threads(), last.threads(), threads);
        pass &= grew(lines, "device memory in use", "MiB", baseline.deviceMiB(), last.deviceMiB(), deviceMiB);
        double ratio = last.enqueueNs() / baseline.enqueueNs();
        boolean costOk = !(ratio > costRatio); // NaN (no sample) passes: nothing was seen growing
        lines.add(String.format(Locale.ROOT, "per-enqueue cost: %.0f -> %.0f ns (x%.2f, tolerance x%.2f): %s", baseline.enqueueNs(),
                last.enqueueNs(), ratio, costRatio, costOk ? "not growing" : "GROWING"));
        pass &= costOk;
        boolean correct = last.wrong() == 0 && last.errors() == 0;
        lines.add(String.format(Locale.ROOT, "results: %d wrong, %d failed requests of %d: %s", last.wrong(), last.errors(),
                last.requests(), correct ? "all right" : "WRONG"));
        pass &= correct;
        lines.add("verdict=" + (pass ? "PASS" : "FAIL"));
        return lines;
    }

    private static boolean grew(List<String> lines, String what, String unit, double from, double to, double tolerance) {
        boolean flat = to - from <= tolerance;
        String u = unit.isEmpty() ? "" : " " + unit;
        String f = unit.isEmpty() ? "%.0f" : "%.1f"; // counts print as counts
        lines.add(String.format(Locale.ROOT, "%s: " + f + " -> " + f + "%s (" + f.replace("%", "%+") + ", tolerance +" + f + "): %s",
                what, from, to, u, to - from, tolerance, flat ? "flat" : "GROWING"));
        return flat;
    }
}
