#!/usr/bin/env bash
# Runs Sluice's benchmarks (docs/benchmarks.md) with a plain `java`, no Maven: here after a build, or on
# the GPU machine over what scripts/gpu-pack.sh put in .gpu/ (scripts/gpu-run.sh bench calls this).
#
#   scripts/bench.sh [what...]     what: overlap jmh jmh-variants all   (default: overlap jmh)
#
#   overlap       dev.sluice.benchmarks.OverlapBenchmark: the table, and a traced run drawn as an SVG timeline
#   jmh           every JMH benchmark of dev.sluice.benchmarks (enqueue, futures, latency, sync vs async),
#                 then, if $BENCH_OUT/native.txt exists, their ratios to the C figures (JmhVsNative)
#   jmh-variants  EnqueueBenchmark with tracing off and on, and its launches with a completion marker per
#                 operation and per 16; FutureBenchmark and LatencyBenchmark under each wait strategy
#   all           the three
#
# Results, in $BENCH_OUT (default ${OUT:-/tmp/out}):
#   bench.txt              everything printed: the overlap table and key=value lines, JMH's result tables
#   overlap-timeline.svg   the traced overlap run (one lane per stream and kind)
#   bench.tar.gz           jmh*.json (JMH's JSON results) and overlap-trace.json (Chrome trace-event JSON)
#
# Settings (environment):
#   JAVA           java to run (default: .gpu/jre/bin/java if present, else $JAVA_HOME/bin/java, else java)
#   BENCH_CP       class path (default: benchmarks/target/benchmarks.jar if built, else .gpu/lib/*)
#   SLUICE_API     cuda, hip or cpu (default: what DeviceContext.open() picks: CUDA, HIP, then the CPU)
#   OVERLAP_ARGS   arguments of OverlapBenchmark (default: none; see its --help). If $BENCH_OUT/native.txt
#                  exists (benchmarks/native's output, as gpu-run.sh native writes it), --native gets it
#   JMH_ARGS       JMH options (default: -f 1 -wi 3 -w 1 -i 5 -r 1: about 3 minutes for `jmh`)
#   JMH_INCLUDE    regex of the benchmarks `jmh` runs (default: this package's, not cuda/'s)
#   JAVA_OPTS      extra JVM options (the JMH forks inherit them)
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
OUTDIR="${BENCH_OUT:-${OUT:-/tmp/out}}"
mkdir -p "$OUTDIR"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

if [ -z "${JAVA:-}" ]; then
  if [ -x "$ROOT/.gpu/jre/bin/java" ]; then JAVA="$ROOT/.gpu/jre/bin/java"
  elif [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then JAVA="$JAVA_HOME/bin/java"
  else JAVA=java; fi
fi
if [ -z "${BENCH_CP:-}" ]; then
  if [ -f "$ROOT/benchmarks/target/benchmarks.jar" ]; then BENCH_CP="$ROOT/benchmarks/target/benchmarks.jar"
  else BENCH_CP="$ROOT/.gpu/lib/*"; fi
fi
API_OPT=()
[ -n "${SLUICE_API:-}" ] && API_OPT=("-Dsluice.api=$SLUICE_API")
read -r -a JOPTS <<< "${JAVA_OPTS:-}"
read -r -a JMH_OPTS <<< "${JMH_ARGS:--f 1 -wi 3 -w 1 -i 5 -r 1}"
read -r -a OV_OPTS <<< "${OVERLAP_ARGS:-}"
JVM=("$JAVA" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow "${API_OPT[@]}" "${JOPTS[@]}" -cp "$BENCH_CP")
LOG="$OUTDIR/bench.txt"

WHAT=("$@")
[ ${#WHAT[@]} -gt 0 ] || WHAT=(overlap jmh)
SEL=()
for w in "${WHAT[@]}"; do
  case "$w" in
    all) SEL+=(overlap jmh jmh-variants) ;;
    overlap|jmh|jmh-variants) SEL+=("$w") ;;
    *) echo "bench: unknown target '$w' (overlap jmh jmh-variants all)" >&2; exit 2 ;;
  esac
done

say() { echo; echo "=================== bench: $* ($(date -u +%H:%M:%S))"; }
STATUS=0
{
  say "java $("$JAVA" -version 2>&1 | sed -n 1p), class path $BENCH_CP, SLUICE_API=${SLUICE_API:-<auto>}"
  for s in "${SEL[@]}"; do
    case "$s" in
      overlap)
        NATIVE=()
        # native.txt of benchmarks/native from the same run (gpu-run.sh native bench): print the ratios to C
        [ -f "$OUTDIR/native.txt" ] && [[ " ${OV_OPTS[*]} " != *" --native "* ]] && NATIVE=(--native "$OUTDIR/native.txt")
        say "overlap ${OV_OPTS[*]} ${NATIVE[*]}"
        "${JVM[@]}" dev.sluice.benchmarks.OverlapBenchmark --svg "$OUTDIR/overlap-timeline.svg" \
          --trace-json "$WORK/overlap-trace.json" "${NATIVE[@]}" "${OV_OPTS[@]}" || { echo "bench: overlap FAILED rc=$?"; STATUS=1; }
        ;;
      jmh)
        say "jmh ${JMH_OPTS[*]}"
        "${JVM[@]}" org.openjdk.jmh.Main "${JMH_INCLUDE:-^dev\.sluice\.benchmarks\.[A-Z]\w*\.\w+\$}" "${JMH_OPTS[@]}" \
          -rf json -rff "$WORK/jmh.json" || { echo "bench: jmh FAILED rc=$?"; STATUS=1; }
        if [ -f "$OUTDIR/native.txt" ] && [ -f "$WORK/jmh.json" ]; then
          "${JVM[@]}" dev.sluice.benchmarks.JmhVsNative "$WORK/jmh.json" "$OUTDIR/native.txt" || echo "bench: ratios to C failed"
        fi
        ;;
      jmh-variants)
        say "jmh-variants: tracing off/on"
        "${JVM[@]}" org.openjdk.jmh.Main '^dev\.sluice\.benchmarks\.EnqueueBenchmark\.' -p tracing=false,true "${JMH_OPTS[@]}" \
          -rf json -rff "$WORK/jmh-tracing.json" || { echo "bench: jmh tracing FAILED rc=$?"; STATUS=1; }
        say "jmh-variants: a completion marker per operation, and one per 16 (the batching experiment)"
        "${JVM[@]}" org.openjdk.jmh.Main '^dev\.sluice\.benchmarks\.EnqueueBenchmark\.launch' -p markerBatch=1,16 "${JMH_OPTS[@]}" \
          -rf json -rff "$WORK/jmh-batch.json" || { echo "bench: jmh marker batches FAILED rc=$?"; STATUS=1; }
        say "jmh-variants: wait strategies"
        "${JVM[@]}" org.openjdk.jmh.Main '^dev\.sluice\.benchmarks\.(LatencyBenchmark|FutureBenchmark\.createAndComplete)' \
          -p waitStrategy=SPIN,YIELD,PARK,BLOCKING "${JMH_OPTS[@]}" \
          -rf json -rff "$WORK/jmh-wait.json" || { echo "bench: jmh wait strategies FAILED rc=$?"; STATUS=1; }
        ;;
    esac
  done
} 2>&1 | tee "$LOG"
STATUS=$(( STATUS | ${PIPESTATUS[0]} ))
# (STATUS set inside the braces lives in a subshell of the pipe: read failures back from the log.)
grep -q '^bench: .* FAILED' "$LOG" && STATUS=1
if compgen -G "$WORK/*.json" >/dev/null; then
  tar -C "$WORK" -czf "$OUTDIR/bench.tar.gz" $(cd "$WORK" && ls ./*.json)
fi
echo "bench: results in $OUTDIR (bench.txt, overlap-timeline.svg, bench.tar.gz)"
exit "$STATUS"
