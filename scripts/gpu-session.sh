#!/usr/bin/env bash
# The checks of a GPU host in three commands, each under 10 minutes (pack first with scripts/gpu-pack.sh on a
# machine with a JDK, and copy .gpu/ into the repository's root on the GPU host). Reports go to ${OUT:-/tmp/out};
# session.txt lists each step with its exit status and wall time. docs/gpu-runs.md records what the runs showed.
#
#   bash scripts/gpu-session.sh tests     every suite and example on one GPU (about 6 minutes): the CUDA suite in
#                                         one JVM and its device-fault tests one JVM each (impl-cuda/gpu-tests.sh),
#                                         the HIP suite through its test library and its fault tests, the reactive
#                                         tests on CUDA, and the examples
#   bash scripts/gpu-session.sh measure   the figures (about 8 minutes): the per-call ratios with C and Sluice
#                                         alternating inside one JVM (gpu-run.sh paired; the default marker groups, a
#                                         marker per operation and groups of 256, 2 rounds each: a PairedBench run
#                                         takes about 45 s on an H200, 3 rounds of 3 ran past the step's 330 s), and the overlap
#                                         benchmark, plain API and reactive pipeline alternating run by run, 11 runs
#                                         each, transfer-bound (4 passes) and balanced (40 passes).
#   bash scripts/gpu-session.sh measure-more  the raw launches and the BLOCKING wait strategy against C across
#                                         processes (gpu-run.sh sweep), pinned bandwidth against C three times.
#                                         The machine's figures move by up to 30 % between processes: one run decides
#                                         nothing.
#                                         (gpu-run.sh percall adds the variants and a Flight Recorder profile.)
#   bash scripts/gpu-session.sh kernels   generated kernels against hand-written CUDA C++ over 512 MiB (about 1 minute):
#                                         y = a*x + b (target: within 5 %) and a float sum (target: within 10 %),
#                                         side by side (GeneratedKernelBench); then eight elementwise stages
#                                         launched one by one, fused by Kernels.fuse, and hand-written (FusionBench)
#   bash scripts/gpu-session.sh peers     on a host with two GPUs (about 6 minutes): the CUDA suite again (its peer area
#                                         and the fault tests' bystander on device 1 need the second GPU), PeerCopy, the
#                                         GpuPipeline over two devices (and its fault case, in a JVM of its own), and
#                                         MultiGpuBench (peer bandwidth against C's, one device against two)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-/tmp/out}"
mkdir -p "$OUT"
# the overlap benchmark with its arguments after the output file
OVERLAP='out="$0"; exec .gpu/jre/bin/java --enable-native-access=ALL-UNNAMED -cp ".gpu/lib/*" dev.sluice.benchmarks.OverlapBenchmark "$@" > "$out" 2>&1'
EXAMPLES_ALL="ScalarAdd PrintThreads MapToHost TwoStreams PeerCopy Quickstart WrittenOnce Iterations ArrowIpc Demo"
failed=0

archive() { # a few files are quicker to fetch from a remote host: everything in one archive, session.txt beside it
  local tgz
  tgz="$(mktemp)"
  (cd "$OUT" && tar czf "$tgz" --exclude=session.txt . && mv "$tgz" "$1" \
    && find . -mindepth 1 -maxdepth 1 ! -name "$1" ! -name session.txt -exec rm -rf {} +)
}

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
    # limits add up to under 600 s, so that the command fits a 10-minute limit; the expected total is about 400 s
    step cuda-suite-and-faults 200 env SUITE_LIMIT=120 FAULT_LIMIT=25 bash impl-cuda/gpu-tests.sh all
    step hip-faults 100 bash impl-hip/gpu-fault-tests.sh
    step hip-reactive-examples 270 env TEST_TIMEOUT=120 EXAMPLES="$EXAMPLES_ALL" \
      bash scripts/gpu-run.sh tests-hip tests-reactive examples
    ;;
  measure)
    # limits add up to 590 s, under a 10-minute limit; the expected total is about 400 s
    step paired 330 env PAIRED_REPS=2 PAIRED_VARIANTS="${PAIRED_VARIANTS:-default=;b1=-Dsluice.markers.batch=1;b256=-Dsluice.markers.batch=256}" \
      bash scripts/gpu-run.sh paired
    step overlap 125 bash -c "$OVERLAP" "$OUT/overlap.txt" --api cuda --chunks 16 --streams 1,2,3,4 --reps 11
    step overlap-balanced 125 bash -c "$OVERLAP" "$OUT/overlap40.txt" --api cuda --chunks 16 --streams 1,2,3,4 --reps 11 --passes 40
    sed -n '/^== median/,$p' "$OUT/paired.txt"
    grep -h '^| \(plain\|reactive\)' "$OUT/overlap.txt" "$OUT/overlap40.txt"
    archive measure.tgz
    ;;
  measure-more)
    # the raw launches and the BLOCKING wait strategy against C across processes, pinned bandwidth against C three times
    step sweep 100 env SWEEP_REPS=3 SWEEP_VARIANTS='default=' SWEEP_ONLY=launch,blocking bash scripts/gpu-run.sh sweep
    for i in 1 2 3; do # C's bandwidth, then Sluice's against it
      step "bandwidth-$i" 60 bash -c 'd="$(mktemp -d)" && OUT="$d" NATIVE_ARGS="--quick --only bandwidth" bash scripts/gpu-run.sh native \
        > /dev/null && exec .gpu/jre/bin/java --enable-native-access=ALL-UNNAMED -cp ".gpu/lib/*" \
        dev.sluice.benchmarks.cuda.CudaBench --quick --only bandwidth --native "$d/native.txt" > "$1" 2>&1' \
        _ "$OUT/bandwidth-$i.txt"
    done
    grep -A12 '^== median' "$OUT/sweep.txt"
    grep -h '^pinned' "$OUT"/bandwidth-*.txt
    archive measure-more.tgz
    ;;
  kernels)
    step generated-kernels 300 bash -c 'exec .gpu/jre/bin/java --enable-native-access=ALL-UNNAMED -cp ".gpu/lib/*" \
      dev.sluice.benchmarks.cuda.GeneratedKernelBench --reps 30 > "$1" 2>&1' _ "$OUT/generated-kernels.txt"
    cat "$OUT/generated-kernels.txt"
    step fusion 300 bash -c 'exec .gpu/jre/bin/java --enable-native-access=ALL-UNNAMED -cp ".gpu/lib/*" \
      dev.sluice.benchmarks.FusionBench --api cuda --reps 30 > "$1" 2>&1' _ "$OUT/fusion.txt"
    cat "$OUT/fusion.txt"
    ;;
  peers)
    step cuda-suite-and-faults 300 env SUITE_LIMIT=150 FAULT_LIMIT=30 bash impl-cuda/gpu-tests.sh all
    step peer-copy 120 env EXAMPLES=PeerCopy bash scripts/gpu-run.sh examples
    step multi-device-pipeline 180 env TESTS_REACTIVE_INCLUDE='^.*MultiDevice.*Test$' bash scripts/gpu-run.sh tests-reactive
    # the fault case poisons device 1 for the process: a JVM of its own
    step multi-device-fault 120 env TESTS_REACTIVE_INCLUDE='^.*MultiDevice.*Test$' JAVA_OPTS=-Dsluice.reactive.faultTest=true \
      bash scripts/gpu-run.sh tests-reactive
    step multi-bench 300 bash scripts/gpu-run.sh multi
    ;;
  *)
    echo "usage: bash scripts/gpu-session.sh tests|measure|measure-more|kernels|peers" >&2
    exit 2
    ;;
esac
cat "$OUT/session.txt"
exit "$failed"
