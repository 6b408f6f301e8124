#!/usr/bin/env bash
# Runs on the GPU machine (no JDK, no Maven, no network), from the repo root, over what
# scripts/gpu-pack.sh put in .gpu/:
#
#   bash scripts/gpu-run.sh [what...]      what: native tests-cuda tests-hip tests-reactive
#                                                tests-cpu tests-flink examples bench percall sweep paired tally
#                                                meter multi all
#                                                (default: all)
#
# `all` is: native tests-cuda tests-hip tests-reactive examples. tests-cpu runs impl-cpu's
# suite on the packed runtime, a check of the packing itself. tests-flink (not in `all`: it needs
# scripts/gpu-pack-flink.sh --tests's folders .gpu-flink/part*/ beside .gpu/) runs the flink module's tests, embedded
# Flink clusters over the devices there are, with Flink's jars and the module's test class path from those folders. bench (not in `all`: about 5
# minutes) runs scripts/bench.sh: the overlap benchmark and the JMH benchmarks (docs/benchmarks.md).
# percall (not in `all`: about 2 minutes) runs CudaBench for the CUDA backend's per-call targets, with variants and a
# Flight Recorder profile (percall.txt, launch.jfr). sweep (not in `all`: about 3 minutes) runs those targets
# SWEEP_REPS times (default 3), each time C first and then every variant of SWEEP_VARIANTS, and prints the
# median ratio of each variant (sweep.txt): one JVM's figures vary by up to 20 % from the next one's, so a
# variant is judged on repeats interleaved with the others, not on one run. paired (not in `all`: about a
# minute per variant and round) measures the same targets with C and Sluice alternating inside one JVM
# (PairedBench, benchmarks/native/sluice_paired.c), which takes the machine's drift out of the ratios. meter (not in
# `all`: about 2 s per JVM on the CPU backend, 5 s on CUDA) measures the metrics binder's cost per operation over many
# JVMs (MeterPairedBench; docs/observability.md).
#
# Reports go to ${OUT:-/tmp/out}, as a few files (few enough to fetch from a remote GPU host at once):
#   run.log               everything printed, all steps
#   native.txt            the output of benchmarks/native (name=value lines, then a table)
#   summary.txt           one line per step: status, and tests found/ok/failed/skipped
#   junit-reports.tar.gz  the console launcher's XML reports, one folder per target
#   bench.txt, overlap-timeline.svg, bench.tar.gz   from bench (see scripts/bench.sh)
#
# Settings (environment):
#   NATIVE_ARGS               arguments of sluice_native_bench (e.g. "--quick", "--only launch")
#   TESTS_CUDA_INCLUDE        class-name regex for tests-cuda      (default ^.*Cuda.*Tests?$)
#   TESTS_HIP_INCLUDE         ... tests-hip                        (default ^.*Hip.*Tests?$)
#   TESTS_REACTIVE_INCLUDE    ... tests-reactive                   (default ^.*Tests?$)
#   TESTS_CPU_INCLUDE         ... tests-cpu                        (default ^.*Tests?$)
#   TESTS_FLINK_INCLUDE       ... tests-flink                      (default ^.*Tests?$)
#   TESTS_<T>_MODULES         modules whose test classes are scanned (defaults: impl-cuda,
#                             impl-hip, reactive, impl-cpu; not tests-flink, whose classes are a packed jar)
#   TESTS_<T>_API             value of -Dsluice.api (defaults: cuda, hip, cuda, cpu, cuda); tests-flink on cpu runs
#                             on two simulated devices (-Dsluice.cpu.devices=2), as the module's build does
#   HIP_SHIM                  tests-hip builds impl-hip's HIP-over-CUDA test library and points the HIP
#                             backend at it (default 1); 0 uses the HIP library discovery finds
#   JAVA_OPTS                 extra JVM options for tests and examples
#   TEST_TIMEOUT              seconds per test target (default 300)
#   EXAMPLES                  example main classes, simple names in dev.sluice.examples
#                             (space separated); EXAMPLES_API (default cuda), EXAMPLE_TIMEOUT (120)
#   BENCH_WHAT                targets of scripts/bench.sh for bench (default "overlap jmh"; also
#                             jmh-variants, all); BENCH_API (default cuda); OVERLAP_ARGS, JMH_ARGS,
#                             JMH_INCLUDE as scripts/bench.sh reads them
#   METER_JVMS, METER_APIS, METER_SETTINGS  meter's JVMs per setting (12), backends ("cpu cuda") and settings
#                             (NAME=arguments;...: "metrics=--bound metrics;listener=--bound listener")
#   PAIRED_REPS, PAIRED_VARIANTS, PAIRED_ARGS  paired's rounds, variants (as SWEEP_VARIANTS) and PairedBench
#                             arguments (e.g. "--blocks 40 --samples 10000")
#   PAIRED_BASE               a folder of another build's Sluice jars (gpu-pack.sh --base puts them in .gpu/base-lib):
#                             the first variant also runs as <name>@base with those jars first on the class path, in
#                             the same round, the two builds taking turns to go first (a change judged against the
#                             commit before it; the other variants are knobs of this build)
#   SWEEP_REPS, SWEEP_VARIANTS  sweep's repeats and variants: ';'-separated NAME=JVM-OPTIONS (options may be
#                             empty); SWEEP_ONLY: CudaBench's --only list (default launch,latency,tiny)
#   CUDA_HOME                 default /usr/local/cuda
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
OUT="${OUT:-/tmp/out}"
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
GPU="$ROOT/.gpu"
JAVA="$GPU/jre/bin/java"
WORK="$(mktemp -d)"
mkdir -p "$OUT"
exec > >(tee -a "$OUT/run.log") 2>&1
TEE_PID=$!

WHAT=("$@")
[ ${#WHAT[@]} -gt 0 ] || WHAT=(all)
SEL=()
for w in "${WHAT[@]}"; do
  case "$w" in
    all) SEL+=(native tests-cuda tests-hip tests-reactive examples) ;;
    native|tests-cuda|tests-hip|tests-reactive|tests-cpu|tests-flink|examples|bench|percall|sweep|paired|tally|multi|meter)
      SEL+=("$w") ;;
    *) echo "gpu-run: unknown target '$w'" >&2; exit 2 ;;
  esac
done

SUMMARY=()
FAILED=0
note() { SUMMARY+=("$1"); }
step() { echo; echo "=================== $* ($(date -u +%H:%M:%S))"; }

step "machine"
date -u
uname -a
nvidia-smi --query-gpu=name,driver_version,memory.total,pcie.link.gen.current,pcie.link.width.current,clocks.max.sm \
  --format=csv 2>&1 || echo "nvidia-smi failed"
nvidia-smi 2>&1 | sed -n 1,20p
nproc
# the clock source decides what System.nanoTime costs (a syscall where it is not the TSC), and the socket layout
# what a cache line passed between the enqueuing and the completion thread costs
echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)" \
  "(available: $(cat /sys/devices/system/clocksource/clocksource0/available_clocksource 2>/dev/null))"
lscpu 2>/dev/null | grep -E '^(Model name|Socket|NUMA node|Thread|Core|Hypervisor)' || true
ls -l /usr/lib/x86_64-linux-gnu/libcuda.so* /usr/local/nvidia/lib64/libcuda.so* "$CUDA_HOME"/lib64/libnvrtc.so* 2>&1 | sed 's/^/  /'
[ -x "$JAVA" ] || chmod +x "$JAVA" 2>/dev/null || true # (jre.tar.gz keeps the runtime's own modes)
[ -x "$JAVA" ] && "$JAVA" -version 2>&1

# ---------------------------------------------------------------- native
run_native() {
  step "native"
  local src=benchmarks/native/sluice_native_bench.c
  [ -f "$src" ] || src="$GPU/native/sluice_native_bench.c"
  [ -f "$src" ] || { echo "no sluice_native_bench.c"; note "native: MISSING SOURCE"; FAILED=1; return; }
  local bin="$WORK/sluice_native_bench" cc ok=0
  cc="$(command -v gcc || command -v cc || true)"
  [ -n "$cc" ] || { echo "no C compiler"; note "native: NO COMPILER"; FAILED=1; return; }
  # libcuda.so.1 comes with the driver, often outside the linker's search path
  # (/usr/local/nvidia/lib64); the toolkit's stub links too (the soname is the same).
  local cands=() found
  found="$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 .*x86-64/ && !found {print $NF; found = 1}')"
  [ -n "$found" ] && cands+=("-L$(dirname "$found") -l:libcuda.so.1")
  cands+=("-lcuda" "-L/usr/local/nvidia/lib64 -l:libcuda.so.1" "-L/usr/lib/x86_64-linux-gnu -l:libcuda.so.1"
          "-L$CUDA_HOME/lib64/stubs -lcuda" "-L$CUDA_HOME/targets/x86_64-linux/lib/stubs -lcuda")
  for libs in "${cands[@]}"; do
    # shellcheck disable=SC2086
    if "$cc" -O2 -std=gnu11 -Wall -Wextra -I"$CUDA_HOME/include" "$src" -o "$bin" \
         -L"$CUDA_HOME/lib64" $libs -ldl; then
      echo "built with: $cc ... $libs -ldl"; ok=1; break
    fi
  done
  [ "$ok" = 1 ] || { note "native: BUILD FAILED"; FAILED=1; return; }
  # shellcheck disable=SC2086
  "$bin" ${NATIVE_ARGS:-} | tee "$OUT/native.txt"
  local rc=${PIPESTATUS[0]}
  if [ "$rc" = 0 ]; then note "native: ok ($(grep -c '=' "$OUT/native.txt") lines in native.txt)"
  else note "native: FAILED rc=$rc"; FAILED=1; fi
}

# ---------------------------------------------------------------- percall
# The per-call targets and what they are made of: CudaBench against the C figures of the same run, then
# the same with the completion thread polling at most every 1 and 5 µs, and with its fault checks
# (cuStreamQuery) at most every ms instead of 20 µs (do its driver calls slow the enqueuing thread?), with
# completion markers in batches of 16 (DeviceStream's experiment), then the launch loop under Java Flight
# Recorder (benchmarks/profile.jfc) for a profile.
# Output: percall.txt, launch.jfr (read it with `jfr print` or scripts/jfr-top.sh).
run_percall() {
  step "percall"
  [ -f "$OUT/native.txt" ] || NATIVE_ARGS="${NATIVE_ARGS:---quick}" run_native
  local j=("$JAVA" --enable-native-access=ALL-UNNAMED ${JAVA_OPTS:-} -cp "$GPU/lib/*") rc gap
  ( rc=0
    echo "== CudaBench --quick (defaults)"
    "${j[@]}" dev.sluice.benchmarks.cuda.CudaBench --quick --native "$OUT/native.txt" || rc=1
    for gap in ${PERCALL_POLL_GAPS:-1000 5000}; do
      echo; echo "== CudaBench --quick, -Dsluice.engine.pollGapNanos=$gap"
      "${j[@]}" -Dsluice.engine.pollGapNanos="$gap" dev.sluice.benchmarks.cuda.CudaBench --quick \
        --only launch,latency,tiny --native "$OUT/native.txt" || rc=1
    done
    echo; echo "== CudaBench --quick, -Dsluice.cuda.faultCheckNanos=1000000 (cuStreamQuery at most every ms)"
    "${j[@]}" -Dsluice.cuda.faultCheckNanos=1000000 dev.sluice.benchmarks.cuda.CudaBench --quick \
      --only launch,latency,tiny --native "$OUT/native.txt" || rc=1
    echo; echo "== CudaBench --quick, -Dsluice.markers.batch=16 (one completion marker per 16 operations)"
    "${j[@]}" -Dsluice.markers.batch=16 dev.sluice.benchmarks.cuda.CudaBench --quick \
      --only launch,latency,tiny --native "$OUT/native.txt" || rc=1
    echo; echo "== CudaBench --only launch under JFR"
    "${j[@]}" -XX:StartFlightRecording=filename="$OUT/launch.jfr",settings=benchmarks/profile.jfc \
      dev.sluice.benchmarks.cuda.CudaBench --only launch || rc=1
    exit "$rc"
  ) 2>&1 | tee "$OUT/percall.txt"
  rc=${PIPESTATUS[0]}
  if [ "$rc" = 0 ]; then note "percall: ok (percall.txt, launch.jfr)"; else note "percall: FAILED"; FAILED=1; fi
}

# ---------------------------------------------------------------- sweep
# Lines "REP VARIANT NAME VALUE" of file $1 -> per variant and name, the median over the repeats, then every value;
# with $2 = quartiles, the first and third quartiles instead of every value.
print_medians() {
  awk -v quartiles="${2:-}" '{ k = $2 SUBSEP $3; v[k] = v[k] " " $4; if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
    END { for (i = 1; i <= n; i++) { split(order[i], kk, SUBSEP); m = split(substr(v[order[i]], 2), a, " ");
            for (x = 1; x <= m; x++) for (y = x + 1; y <= m; y++) if (a[y] < a[x]) { t = a[x]; a[x] = a[y]; a[y] = t }
            if (quartiles != "") printf "%-18s %-16s %8.3f (%.3f, %.3f)\n", kk[1], kk[2], q(a, m, 0.5), q(a, m, 0.25), q(a, m, 0.75)
            else printf "%-16s %-34s %8.3f   (%s)\n", kk[1], kk[2], q(a, m, 0.5), substr(v[order[i]], 2) } }
    function q(a, m, p,   h, lo) { h = 1 + (m - 1) * p; lo = int(h); return lo >= m ? a[m] : a[lo] + (h - lo) * (a[lo + 1] - a[lo]) }' "$1"
}

# The per-call ratios for several settings, repeated and interleaved (see the header).
# Output: sweep.txt (every run, then the medians).
run_sweep() {
  step "sweep"
  local reps="${SWEEP_REPS:-3}" only="${SWEEP_ONLY:-launch,latency,tiny}" rc=0 r v name opts
  local variants="${SWEEP_VARIANTS:-default=;gap1000=-Dsluice.engine.pollGapNanos=1000}"
  local bin="$WORK/sluice_native_bench" tsv="$WORK/sweep.tsv"
  : > "$tsv"
  [ -x "$bin" ] || NATIVE_ARGS="${NATIVE_ARGS:---quick}" run_native
  ( for r in $(seq 1 "$reps"); do
      echo "== rep $r: C"
      "$bin" --quick --only launch,latency,tiny > "$WORK/native-$r.txt" 2>&1 || rc=1
      grep -E '^(launch5|launch5_event|latency_event_p50|tiny_20k)(_us|_ms)?=' "$WORK/native-$r.txt"
      IFS=';' read -r -a vs <<< "$variants"
      for v in "${vs[@]}"; do
        name="${v%%=*}"; opts="${v#*=}"
        echo "== rep $r: $name ($opts)"
        # shellcheck disable=SC2086
        "$JAVA" --enable-native-access=ALL-UNNAMED $opts -cp "$GPU/lib/*" dev.sluice.benchmarks.cuda.CudaBench \
          --quick --only "$only" --native "$WORK/native-$r.txt" > "$WORK/bench.txt" 2>&1 || rc=1
        grep -E '^ratio_' "$WORK/bench.txt" | sed "s/^ratio_//; s/=/ /; s/^/$r $name /" >> "$tsv"
        grep -E '^(ratio_|sluice_launch5_future_us|sluice_tiny_20k_ms|sluice_latency_(park|spin)_p50_us)' "$WORK/bench.txt"
      done
    done
    echo; echo "== median ratio over $reps reps (Sluice / C of the same rep)"
    print_medians "$tsv"
    exit "$rc"
  ) 2>&1 | tee "$OUT/sweep.txt"
  rc=${PIPESTATUS[0]}
  if [ "$rc" = 0 ]; then note "sweep: ok (sweep.txt)"; else note "sweep: FAILED"; FAILED=1; fi
}

# ---------------------------------------------------------------- native libraries
# Builds benchmarks/native/$1 (or its packed copy) as the shared library $2 against the driver's libcuda, trying the
# usual places of libcuda.so.1, then the toolkit's stub. Fails if no compiler or no libcuda links.
build_native_lib() {
  local src="benchmarks/native/$1" so="$2" libs found cc
  [ -f "$src" ] || src="$GPU/native/$1"
  cc="$(command -v gcc || command -v cc || true)"
  [ -n "$cc" ] || return 1
  found="$(ldconfig -p 2>/dev/null | awk '/libcuda\.so\.1 .*x86-64/ && !found {print $NF; found = 1}')"
  for libs in ${found:+"-L$(dirname "$found") -l:libcuda.so.1"} "-L/usr/local/nvidia/lib64 -l:libcuda.so.1" \
      "-L/usr/lib/x86_64-linux-gnu -l:libcuda.so.1" "-L$CUDA_HOME/lib64/stubs -lcuda"; do
    # shellcheck disable=SC2086
    if "$cc" -O2 -std=gnu11 -Wall -Wextra -shared -fPIC -I"$CUDA_HOME/include" "$src" -o "$so" $libs; then
      echo "built $so with: $libs"; return 0
    fi
  done
  return 1
}

# ---------------------------------------------------------------- paired
# The per-call ratios with C and Sluice alternating inside one JVM (PairedBench over
# benchmarks/native/sluice_paired.c built as a shared library): block by block for launches and tiny
# kernels, sample by sample for latency. PAIRED_REPS (default 3) rounds, each running every variant of
# PAIRED_VARIANTS (as SWEEP_VARIANTS) in its own JVM. Output: paired.txt (every run, then the medians).
run_paired() {
  step "paired"
  local reps="${PAIRED_REPS:-3}" variants="${PAIRED_VARIANTS:-default=}" rc=0 r v name opts builds b label cp
  local so="$WORK/libsluice_paired.so" tsv="$WORK/paired.tsv"
  build_native_lib sluice_paired.c "$so" || { note "paired: BUILD FAILED"; FAILED=1; return; }
  : > "$tsv"
  ( for r in $(seq 1 "$reps"); do
      IFS=';' read -r -a vs <<< "$variants"
      for v in "${vs[@]}"; do
        name="${v%%=*}"; opts="${v#*=}"
        builds="this"
        # the base build runs beside the first variant only: the others are knobs of this build
        if [ -n "${PAIRED_BASE:-}" ] && [ "$v" = "${vs[0]}" ]; then
          if [ $((r % 2)) = 1 ]; then builds="base this"; else builds="this base"; fi
        fi
        for b in $builds; do
          label="$name"; cp="$GPU/lib/*"
          if [ "$b" = base ]; then label="$name@base"; cp="$PAIRED_BASE/*:$GPU/lib/*"; fi
          echo "== rep $r: $label ($opts)"
          # shellcheck disable=SC2086
          "$JAVA" --enable-native-access=ALL-UNNAMED $opts -cp "$cp" dev.sluice.benchmarks.cuda.PairedBench \
            --lib "$so" ${PAIRED_ARGS:-} > "$WORK/paired-run.txt" 2>&1 || rc=1
          cat "$WORK/paired-run.txt"
          grep -E '^paired_' "$WORK/paired-run.txt" | sed "s/^paired_//; s/=/ /; s/^/$r $label /" >> "$tsv"
        done
      done
    done
    echo; echo "== median over $reps reps (each figure is already C and Sluice alternating in one JVM)"
    print_medians "$tsv"
    exit "$rc"
  ) 2>&1 | tee "$OUT/paired.txt"
  rc=${PIPESTATUS[0]}
  if [ "$rc" = 0 ]; then note "paired: ok (paired.txt)"; else note "paired: FAILED"; FAILED=1; fi
}

# ---------------------------------------------------------------- tally
# Where a PairedBench row's time goes (see the header): per completion setting, the row with its driver calls
# counted and timed, then a CPU-time profile of the default. Output: tally.txt, tally.jfr.
run_tally() {
  step "tally"
  local so="$WORK/libsluice_paired.so" rows="${TALLY_ROWS:-launch}" s rc=0
  build_native_lib sluice_paired.c "$so" || { note "tally: BUILD FAILED"; FAILED=1; return; }
  ( for s in ${TALLY_SETTINGS:-auto record poll events}; do
      echo "== $rows, -Dsluice.completion=$s, every downcall timed"
      "$JAVA" --enable-native-access=ALL-UNNAMED -Dsluice.completion="$s" -Dsluice.cuda.timeDowncalls=true \
        -cp "$GPU/lib/*" dev.sluice.benchmarks.cuda.PairedBench --lib "$so" --only "$rows" || rc=1
    done
    echo "== $rows under Flight Recorder's CPU-time sampler (default settings)"
    "$JAVA" --enable-native-access=ALL-UNNAMED \
      "-XX:StartFlightRecording:jdk.CPUTimeSample#enabled=true,jdk.CPUTimeSample#throttle=1ms,filename=$OUT/tally.jfr" \
      -cp "$GPU/lib/*" dev.sluice.benchmarks.cuda.PairedBench --lib "$so" --only "$rows" || rc=1
    exit "$rc"
  ) 2>&1 | tee "$OUT/tally.txt"
  rc=${PIPESTATUS[0]}
  if [ "$rc" = 0 ]; then note "tally: ok (tally.txt, tally.jfr)"; else note "tally: FAILED"; FAILED=1; fi
}

# ---------------------------------------------------------------- meter
# The metrics binder's cost per operation (MeterPairedBench: a bound and a plain context alternating block by block in
# one JVM), in METER_JVMS JVMs (default 12) per setting, the settings taking turns JVM by JVM: for each backend of
# METER_APIS (default "cpu cuda"), each of METER_SETTINGS (';'-separated NAME=MeterPairedBench arguments, default
# "metrics=--bound metrics;listener=--bound listener"). One JVM's figure
# differs from the next one's by about as much as the binder costs, so the figure is the median over JVMs of each
# JVM's median block difference, with the quartiles over JVMs. Output: meter.txt (every JVM, then the medians).
run_meter() {
  step "meter"
  local jvms="${METER_JVMS:-12}" rc=0 r api v name args tsv="$WORK/meter.tsv"
  local settings="${METER_SETTINGS:-metrics=--bound metrics;listener=--bound listener}"
  : > "$tsv"
  ( for r in $(seq 1 "$jvms"); do
      for api in ${METER_APIS:-cpu cuda}; do
        IFS=';' read -r -a vs <<< "$settings"
        for v in "${vs[@]}"; do
          name="$api-${v%%=*}"; args="${v#*=}"
          # shellcheck disable=SC2086
          "$JAVA" --enable-native-access=ALL-UNNAMED -Dsluice.api="$api" -cp "$GPU/lib/*" \
            dev.sluice.benchmarks.MeterPairedBench $args > "$WORK/meter-run.txt" 2>&1 || rc=1
          echo "== jvm $r: $name: $(grep -E '^meter_(marker|upload)_(plain|cost)_us=' "$WORK/meter-run.txt" | tr '\n' ' ')"
          grep -E '^meter_(marker|upload)_(plain|cost)_us=' "$WORK/meter-run.txt" \
            | sed "s/^meter_//; s/=/ /; s/^/$r $name /" >> "$tsv"
        done
      done
    done
    echo; echo "== over $jvms JVMs per setting: median (first quartile, third quartile) of the JVMs' figures, µs"
    print_medians "$tsv" quartiles
    exit "$rc"
  ) 2>&1 | tee "$OUT/meter.txt"
  rc=${PIPESTATUS[0]}
  if [ "$rc" = 0 ]; then note "meter: ok (meter.txt)"; else note "meter: FAILED"; FAILED=1; fi
}

# ---------------------------------------------------------------- multi
# Two devices (MultiGpuBench): peer-copy bandwidth, Sluice's against C's cuMemcpyPeerAsync
# (benchmarks/native/sluice_peer.c built as a shared library) alternating block by block in one JVM,
# and a GpuPipeline over one device against the same over two. MULTI_ARGS are MultiGpuBench's arguments;
# MULTI_JAVA_OPTS the JVM's (default: a 16 GiB heap, touched at start, so that the array load's gigabyte of
# results costs copies, not page faults and collections). Output: multi.txt.
run_multi() {
  step "multi"
  local so="$WORK/libsluice_peer.so" lib=()
  if build_native_lib sluice_peer.c "$so"; then lib=(--lib "$so"); else note "multi: C side not built; Sluice's side alone"; fi
  # shellcheck disable=SC2086
  "$JAVA" ${MULTI_JAVA_OPTS:--Xms16g -Xmx16g -XX:+AlwaysPreTouch} --enable-native-access=ALL-UNNAMED -cp "$GPU/lib/*" dev.sluice.benchmarks.cuda.MultiGpuBench \
    "${lib[@]}" ${MULTI_ARGS:-} 2>&1 | tee "$OUT/multi.txt"
  local rc=${PIPESTATUS[0]}
  if [ "$rc" = 0 ]; then note "multi: ok (multi.txt)"; else note "multi: FAILED rc=$rc"; FAILED=1; fi
}

# ---------------------------------------------------------------- tests
run_tests() { # target modules api include
  local t="$1" modules="$2" api="$3" include="$4"
  step "$t (modules: $modules, -Dsluice.api=$api, include: $include)"
  [ -x "$JAVA" ] || { echo "no $JAVA: run scripts/gpu-pack.sh and copy .gpu/ here"; note "$t: NO JRE"; FAILED=1; return; }
  local dirs="" m
  for m in ${modules//,/ }; do
    if [ -d "$GPU/test/$m" ]; then dirs="${dirs:+$dirs:}$GPU/test/$m"
    else echo "no test classes for $m in .gpu/test"; fi
  done
  [ -n "$dirs" ] || { note "$t: SKIPPED (no test classes packed)"; return; }
  run_console "$t" "$api" "$include" "$GPU/lib/*:$GPU/test/lib/*:$dirs" "$dirs"
}

# Runs the JUnit console launcher on class path $4 over the test classes of $5 (':'-separated folders or jars, each
# also on $4), the classes named as $3 says, with -Dsluice.api=$2 and JAVA_OPTS; notes the counts in the summary.
run_console() { # target api include class-path roots
  local t="$1" api="$2" include="$3" cp="$4" roots="$5" log="$WORK/$1.log"
  # shellcheck disable=SC2086
  timeout "${TEST_TIMEOUT:-300}" "$JAVA" --enable-native-access=ALL-UNNAMED -Xss2m \
    -Dsluice.api="$api" ${JAVA_OPTS:-} -cp "$cp" org.junit.platform.console.ConsoleLauncher \
    execute --disable-banner --details=tree --disable-ansi-colors \
    --scan-class-path="$roots" --include-classname="$include" \
    --reports-dir="$OUT/junit/$t" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  count() { sed -n "s/^\[ *\([0-9][0-9]*\) tests $1 *\]\$/\1/p" "$log" | tail -1; }
  local found ok failed skipped aborted
  found="$(count found)"; ok="$(count successful)"; failed="$(count failed)"
  skipped="$(count skipped)"; aborted="$(count aborted)"
  local status=ok
  [ "$rc" = 0 ] || { status="FAILED rc=$rc"; FAILED=1; }
  [ "$rc" = 124 ] && status="TIMED OUT after ${TEST_TIMEOUT:-300}s"
  # The launcher exits 0 when it finds no test at all: a class path or scan root that is wrong, not a pass.
  if [ "$rc" = 0 ] && [ "${found:-0}" = 0 ]; then status="FAILED: no tests found"; FAILED=1; fi
  note "$t: $status; tests found ${found:-?}, successful ${ok:-?}, failed ${failed:-?}, skipped ${skipped:-?}, aborted ${aborted:-?}"
}

# ---------------------------------------------------------------- tests-hip
# The HIP backend on the NVIDIA GPU: impl-hip's test library exports the hip*/hiprtc* functions the backend
# binds, implemented over CUDA and NVRTC and compiled against AMD's HIP prototypes (check 2, CONTRIBUTING.md).
# It is built here, and the tests run with -Dsluice.hip.library / -Dsluice.hiprtc.library pointing at it,
# and a kernel cache of their own. HIP_SHIM=0 runs against whatever HIP library discovery finds instead.
run_tests_hip() {
  local opts="${JAVA_OPTS:-}"
  if [ "${HIP_SHIM:-1}" != 0 ]; then
    step "tests-hip: build the HIP-over-CUDA test library"
    local shim
    if ! shim="$(CUDA_HOME="$CUDA_HOME" bash impl-hip/src/test/native/build-hip-over-cuda.sh "$WORK/hip" | tail -1)" \
        || [ ! -f "$shim" ]; then
      note "tests-hip: TEST LIBRARY BUILD FAILED"; FAILED=1; return
    fi
    opts="$opts -Dsluice.hip.library=$shim -Dsluice.hiprtc.library=$shim -Dsluice.cache.dir=$WORK/kernel-cache"
  fi
  JAVA_OPTS="$opts" run_tests tests-hip "${TESTS_HIP_MODULES:-impl-hip}" "${TESTS_HIP_API:-hip}" \
    "${TESTS_HIP_INCLUDE:-^.*Hip.*Tests?\$}"
}

# ---------------------------------------------------------------- tests-flink
# The flink module's tests (embedded MiniClusters, one TaskManager of 4 slots) on the packed runtime, over what
# scripts/gpu-pack-flink.sh --tests put in .gpu-flink/part*/: Flink's jars, the module's test class path and its test
# classes (sluice-flink-test-classes.jar), before .gpu/lib/ and .gpu/test/lib/ (the JUnit console launcher, sluice-api's
# test jar). The JVM options are the module's Surefire ones: leak detection paranoid, Pekko's and Arrow's sun.misc.Unsafe
# allowed, java.nio opened for Arrow IPC; on cpu two simulated devices, elsewhere the devices there are (1 or 2). The
# tests of sticky faults and of the restart after one fault a context through the CPU simulator's hooks and skip on
# other backends (the launcher's tree names each skip and its reason).
run_tests_flink() {
  local api="${TESTS_FLINK_API:-cuda}" include="${TESTS_FLINK_INCLUDE:-^.*Tests?\$}" parts="" classes="" p
  step "tests-flink (.gpu-flink/part*, -Dsluice.api=$api, include: $include)"
  [ -x "$JAVA" ] || { echo "no $JAVA: run scripts/gpu-pack.sh and copy .gpu/ here"; note "tests-flink: NO JRE"; FAILED=1; return; }
  for p in "$ROOT"/.gpu-flink/part*/; do
    [ -d "$p" ] && parts="$parts$p*:" # one entry per folder: java expands only a trailing '*'
  done
  for p in "$ROOT"/.gpu-flink/part*/sluice-flink-test-classes.jar; do
    [ -f "$p" ] && classes="$p"
  done
  if [ -z "$classes" ]; then
    echo "no sluice-flink-test-classes.jar in .gpu-flink/part*/ (parts: ${parts:-none}): pack with" \
      "scripts/gpu-pack-flink.sh --tests and copy every part here"
    note "tests-flink: NOT PACKED (no .gpu-flink/part*/sluice-flink-test-classes.jar)"; FAILED=1; return
  fi
  local opts="-Dsluice.leakDetection=paranoid --sun-misc-unsafe-memory-access=allow"
  opts="$opts --add-opens=java.base/java.nio=ALL-UNNAMED"
  [ "$api" = cpu ] && opts="$opts -Dsluice.cpu.devices=2"
  # The test classes' jar first by name too: the launcher scans a root only where the class path names it.
  JAVA_OPTS="$opts ${JAVA_OPTS:-}" run_console tests-flink "$api" "$include" \
    "$classes:$parts$GPU/lib/*:$GPU/test/lib/*" "$classes"
}

# ---------------------------------------------------------------- examples
run_examples() {
  step "examples"
  [ -x "$JAVA" ] || { note "examples: NO JRE"; FAILED=1; return; }
  if [ -z "${EXAMPLES:-}" ]; then
    echo "EXAMPLES is empty; classes in the examples jar:"
    for j in "$GPU"/lib/sluice-examples-*.jar; do
      [ -f "$j" ] && unzip -Z1 "$j" 2>/dev/null | grep -E '^dev/sluice/examples/[A-Za-z0-9_]+\.class$' \
        | sed 's:^dev/sluice/examples/::; s:\.class$::; s/^/  /'
    done
    note "examples: none given (set EXAMPLES)"
    return
  fi
  local name rc
  for name in $EXAMPLES; do
    step "example $name"
    # shellcheck disable=SC2086
    timeout "${EXAMPLE_TIMEOUT:-120}" "$JAVA" --enable-native-access=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED \
      -Dsluice.api="${EXAMPLES_API:-cuda}" ${JAVA_OPTS:-} -cp "$GPU/lib/*" "dev.sluice.examples.$name"
    rc=$?
    if [ "$rc" = 0 ]; then note "example $name: ok"; else note "example $name: FAILED rc=$rc"; FAILED=1; fi
  done
}

# ---------------------------------------------------------------- bench (scripts/bench.sh)
run_bench() {
  step "bench: scripts/bench.sh ${BENCH_WHAT:-overlap jmh} (SLUICE_API=${BENCH_API:-cuda})"
  [ -x "$JAVA" ] || { note "bench: NO JRE"; FAILED=1; return; }
  # shellcheck disable=SC2086
  JAVA="$JAVA" BENCH_CP="$GPU/lib/*" BENCH_OUT="$OUT" SLUICE_API="${BENCH_API:-cuda}" \
    bash "$ROOT/scripts/bench.sh" ${BENCH_WHAT:-overlap jmh}
  local rc=$?
  if [ "$rc" = 0 ]; then note "bench: ok (bench.txt, overlap-timeline.svg, bench.tar.gz)"
  else note "bench: FAILED rc=$rc"; FAILED=1; fi
}

for s in "${SEL[@]}"; do
  case "$s" in
    native) run_native ;;
    percall) run_percall ;;
    sweep) run_sweep ;;
    paired) run_paired ;;
    tally) run_tally ;;
    meter) run_meter ;;
    multi) run_multi ;;
    tests-cuda) run_tests "$s" "${TESTS_CUDA_MODULES:-impl-cuda}" "${TESTS_CUDA_API:-cuda}" \
                  "${TESTS_CUDA_INCLUDE:-^.*Cuda.*Tests?\$}" ;;
    tests-hip) run_tests_hip ;;
    tests-flink) run_tests_flink ;;
    # BlockHound (reactive's tests) instruments the JDK from an agent it attaches itself
    tests-reactive) JAVA_OPTS="${JAVA_OPTS:-} -XX:+AllowRedefinitionToAddDeleteMethods -XX:+EnableDynamicAgentLoading" \
                      run_tests "$s" "${TESTS_REACTIVE_MODULES:-reactive}" "${TESTS_REACTIVE_API:-cuda}" \
                      "${TESTS_REACTIVE_INCLUDE:-^.*Tests?\$}" ;;
    tests-cpu) run_tests "$s" "${TESTS_CPU_MODULES:-impl-cpu}" "${TESTS_CPU_API:-cpu}" \
                 "${TESTS_CPU_INCLUDE:-^.*Tests?\$}" ;;
    examples) run_examples ;;
    bench) run_bench ;;
  esac
done

if [ -d "$OUT/junit" ]; then
  tar -C "$OUT" -czf "$OUT/junit-reports.tar.gz" junit && rm -rf "$OUT/junit"
fi
rm -rf "$WORK"

step "summary"
printf '%s\n' "${SUMMARY[@]}" | tee "$OUT/summary.txt"
[ "$FAILED" = 0 ] && echo "gpu-run: all selected steps ok" || echo "gpu-run: some steps FAILED"
exec >&- 2>&-
wait "$TEE_PID" 2>/dev/null
exit "$FAILED"
