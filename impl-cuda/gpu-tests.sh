#!/usr/bin/env bash
# Runs impl-cuda's tests on the GPU machine over what scripts/gpu-pack.sh put in .gpu/: first every test but
# the device-fault ones in one JVM, then each device-fault test in a JVM of its own (a CUDA device fault
# poisons the whole process). Each JVM that outlives its time gets a thread dump (SIGQUIT) before it is
# killed, so a hang shows where it waits. Output: ${OUT:-/tmp/out}/cuda-tests.txt (JUnit's verbose log) and
# faults.txt; exit status 1 if anything failed.
#   bash impl-cuda/gpu-tests.sh [all|suite|faults] [FAULT_TEST...]
# JAVA_OPTS: extra JVM options for every JVM (e.g. -Dsluice.markers.batch=16 for the suite with marker batches).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
JAVA=.gpu/jre/bin/java
CP=".gpu/lib/*:.gpu/test/lib/*:.gpu/test/impl-cuda"
WHAT="${1:-all}"; shift || true
failed=0

run_jvm() { # seconds logfile args...
  local limit="$1" log="$2"; shift 2
  # shellcheck disable=SC2086
  "$JAVA" --enable-native-access=ALL-UNNAMED -Xss2m -Dsluice.api=cuda ${JAVA_OPTS:-} "$@" -cp "$CP" \
    org.junit.platform.console.ConsoleLauncher execute --disable-banner --details=verbose --disable-ansi-colors \
    --select-class=dev.sluice.cuda.CudaConformanceTest --select-class=dev.sluice.cuda.CudaBackendTest \
    --select-class=dev.sluice.cuda.CudaProbeTest --select-class=dev.sluice.cuda.CudaFaultIsolationTest >> "$log" 2>&1 &
  local pid=$! waited=0
  while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt "$limit" ]; do sleep 1; waited=$((waited + 1)); done
  if kill -0 "$pid" 2>/dev/null; then
    echo "=== still running after ${limit}s: thread dump" >> "$log"
    kill -QUIT "$pid"; sleep 3; kill -9 "$pid"; wait "$pid" 2>/dev/null; return 124
  fi
  wait "$pid"
}

if [ "$WHAT" = all ] || [ "$WHAT" = suite ]; then
  : > "$OUT/cuda-tests.txt"
  run_jvm "${SUITE_LIMIT:-300}" "$OUT/cuda-tests.txt"; rc=$?
  [ "$rc" = 0 ] || failed=1
  echo "suite: rc=$rc; $(grep -E '^\[ +[0-9]+ tests (found|successful|failed|skipped|aborted)' "$OUT/cuda-tests.txt" | tr -s ' ' | tr '\n' ' ')"
fi
if [ "$WHAT" = all ] || [ "$WHAT" = faults ]; then
  TESTS=("$@")
  [ ${#TESTS[@]} -gt 0 ] || TESTS=(faultingKernelFailsItsFutureWithADeviceException everyLaterPendingFutureOfTheStreamFails
    pendingFuturesOfOtherStreamsOfTheContextFail laterCallsOnTheContextThrowAtOnce synchronizeAfterAFaultThrowsInsteadOfHanging
    anotherContextStaysUsable hostFunctionAfterAFaultNeverRuns faultedContextClosesCleanly aListenerHearsOfTheFaultOnceAndOfTheFailedOperation
    faultFailsPendingFuturesAndLaterOpensExplainTheProcessIsPoisoned
    aFaultOnDevice0ReachesASluiceContextOfDevice1OnlyWhereItReachesARawOne)
  : > "$OUT/faults.txt"
  for t in "${TESTS[@]}"; do
    log="$(mktemp)"
    run_jvm "${FAULT_LIMIT:-50}" "$log" -Dsluice.cuda.faultTest="$t"; rc=$?
    ok="$(sed -n 's/^\[ *\([0-9]*\) tests successful *\]$/\1/p' "$log")"
    line="$t: rc=$rc successful=${ok:-?}"
    if [ "$rc" != 0 ]; then
      failed=1
      { echo "---- $line"; grep -v -E 'SKIPPED|Reason:|^\s*$|display name|JUnit Jupiter|=> Exception' "$log" | tail -150; } >> "$OUT/faults.txt"
      cp "$log" "$OUT/fault-$t.log" # the whole run: the failure's trace may lie above the last lines
    else
      echo "---- $line" >> "$OUT/faults.txt"
    fi
    echo "$line"
    grep -h -E '^after a fault|Assumption failed: the CUDA driver' "$log" | tee -a "$OUT/faults.txt" # what a test found out
    rm -f "$log"
  done
fi
exit "$failed"
