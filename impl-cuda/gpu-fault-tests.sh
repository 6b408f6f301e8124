#!/usr/bin/env bash
# Runs the CUDA device-fault tests on the GPU machine, each in a JVM of its own (a device fault leaves the
# CUDA driver's sticky error in every context of the device for the rest of the process). Uses what
# scripts/gpu-pack.sh put in .gpu/. Writes ${OUT:-/tmp/out}/faults.txt; exit status 1 if any failed.
#   bash impl-cuda/gpu-fault-tests.sh [TEST_METHOD...]
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-/tmp/out}"
GPU=.gpu
JAVA="$GPU/jre/bin/java"
TESTS=("$@")
[ ${#TESTS[@]} -gt 0 ] || TESTS=(faultingKernelFailsItsFutureWithADeviceException everyLaterPendingFutureOfTheStreamFails
  pendingFuturesOfOtherStreamsOfTheContextFail laterCallsOnTheContextThrowAtOnce synchronizeAfterAFaultThrowsInsteadOfHanging
  anotherContextStaysUsable hostFunctionAfterAFaultNeverRuns faultedContextClosesCleanly
  faultFailsPendingFuturesAndLaterOpensExplainTheProcessIsPoisoned)
mkdir -p "$OUT"
failed=0
: > "$OUT/faults.txt"
for t in "${TESTS[@]}"; do
  log="$(mktemp)"
  timeout 120 "$JAVA" --enable-native-access=ALL-UNNAMED -Xss2m -Dsluice.api=cuda -Dsluice.cuda.faultTest="$t" \
    -cp "$GPU/lib/*:$GPU/test/lib/*:$GPU/test/impl-cuda" org.junit.platform.console.ConsoleLauncher execute \
    --disable-banner --details=tree --disable-ansi-colors --select-class=dev.sluice.cuda.CudaConformanceTest \
    --select-class=dev.sluice.cuda.CudaBackendTest > "$log" 2>&1
  rc=$?
  ok="$(sed -n 's/^\[ *\([0-9]*\) tests successful *\]$/\1/p' "$log")"
  bad="$(sed -n 's/^\[ *\([0-9]*\) tests failed *\]$/\1/p' "$log")"
  line="$t: rc=$rc successful=${ok:-?} failed=${bad:-?}"
  [ "$rc" = 0 ] || { failed=1; line="$line :: $(grep -m3 '✘' "$log" | tr -s ' ' | cut -c1-400 | tr '\n' ' ')"; }
  echo "$line" | tee -a "$OUT/faults.txt"
  rm -f "$log"
done
exit "$failed"
