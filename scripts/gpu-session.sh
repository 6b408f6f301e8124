#!/usr/bin/env bash
# A GPU session in three device runs, each one command (device time is short: pack here first with
# scripts/gpu-pack.sh, then run with carry [".gpu"]). Reports go to ${OUT:-/tmp/out}; session.txt lists each
# step with its exit status and wall time. docs/gpu-runs.md records what the runs showed.
#
#   bash scripts/gpu-session.sh tests     every suite and example on one GPU (about 6 minutes): the CUDA suite in
#                                         one JVM and its device-fault tests one JVM each (impl-cuda/gpu-tests.sh),
#                                         the HIP suite through its test library and its fault tests, the reactive
#                                         tests on CUDA, and the examples
#   bash scripts/gpu-session.sh measure   the figures (about 6 minutes): issue 3's per-call targets with their
#                                         variants and profile (gpu-run.sh percall), and the overlap benchmark, plain
#                                         API against the reactive pipeline, transfer-bound (4 passes) and balanced
#                                         (40 passes), and the pipeline one chunk per lane with the completion
#                                         thread's pauses capped at 200 and at 20 µs
#   bash scripts/gpu-session.sh peers     on the two-GPU kind (about 3 minutes): the CUDA suite again (its peer area
#                                         and the fault tests' bystander on device 1 need the second GPU), and PeerCopy
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-/tmp/out}"
mkdir -p "$OUT"
# the overlap benchmark with its arguments after the output file
OVERLAP='out="$0"; exec .gpu/jre/bin/java --enable-native-access=ALL-UNNAMED -cp ".gpu/lib/*" dev.sluice.benchmarks.OverlapBenchmark "$@" > "$out" 2>&1'
EXAMPLES_ALL="ScalarAdd PrintThreads MapToHost TwoStreams PeerCopy Quickstart Demo"
failed=0

step() { # name seconds command...
  local name="$1" limit="$2"; shift 2
  local t0 rc
  t0=$(date +%s)
  echo "=================== $name ($(date -u +%H:%M:%S))"
  timeout "$limit" "$@"
  rc=$?
  echo "$name: rc=$rc, $(( $(date +%s) - t0 )) s" | tee -a "$OUT/session.txt"
  [ "$rc" = 0 ] || failed=1
}

nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv > "$OUT/gpus.txt" 2>&1
: > "$OUT/session.txt"
case "${1:-}" in
  tests)
    # limits add up to under the device tool's 600 s a command; the expected total is about 400 s
    step cuda-suite-and-faults 200 env SUITE_LIMIT=120 FAULT_LIMIT=25 bash impl-cuda/gpu-tests.sh all
    step hip-faults 100 bash impl-hip/gpu-fault-tests.sh
    step hip-reactive-examples 270 env TEST_TIMEOUT=120 EXAMPLES="$EXAMPLES_ALL" \
      bash scripts/gpu-run.sh tests-hip tests-reactive examples
    ;;
  measure)
    # limits add up to 540 s, under the device tool's 600 s; the expected total is about 300 s
    step percall 240 bash scripts/gpu-run.sh percall
    step overlap 90 bash -c "$OVERLAP" "$OUT/overlap.txt" --api cuda --chunks 16 --streams 1,2,3,4 --reps 5
    step overlap-balanced 90 bash -c "$OVERLAP" "$OUT/overlap40.txt" --api cuda --chunks 16 --streams 1,3 --reps 5 --passes 40
    # one chunk per lane, with the completion thread's pauses capped at 200 (default) and 20 us: how much of the
    # one-lane gap is completions seen late
    step overlap-one-deep 60 bash -c "$OVERLAP" "$OUT/overlap-one-deep.txt" --api cuda --chunks 16 --streams 1,3 --reps 5 --modes reactive --chunks-per-lane 1
    step overlap-one-deep-20us 60 bash -c "$OVERLAP" "$OUT/overlap-one-deep-20us.txt" --api cuda --chunks 16 --streams 1,3 --reps 5 --modes reactive --chunks-per-lane 1 --max-park-us 20
    ;;
  peers)
    step cuda-suite-and-faults 300 env SUITE_LIMIT=150 FAULT_LIMIT=30 bash impl-cuda/gpu-tests.sh all
    step peer-copy 120 env EXAMPLES=PeerCopy bash scripts/gpu-run.sh examples
    ;;
  *)
    echo "usage: bash scripts/gpu-session.sh tests|measure|peers" >&2
    exit 2
    ;;
esac
cat "$OUT/session.txt"
exit "$failed"
