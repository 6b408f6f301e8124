#!/usr/bin/env bash
# Runs the HIP device-fault tests on the GPU machine through the HIP-over-CUDA test library, each in a JVM of
# its own (a device fault ends an AMD process by default and poisons a CUDA one for its lifetime). Uses what
# scripts/gpu-pack.sh put in .gpu/; builds the test library first (impl-hip/src/test/native). On an AMD machine
# set HIP_SHIM=0 to use the real HIP runtime. Writes ${OUT:-/tmp/out}/hip-faults.txt; exit 1 if any failed.
#   bash impl-hip/gpu-fault-tests.sh [TEST_METHOD...]
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-/tmp/out}"
GPU=.gpu
JAVA="$GPU/jre/bin/java"
TESTS=("$@")
[ ${#TESTS[@]} -gt 0 ] || TESTS=(faultingKernelFailsItsFutureWithADeviceException everyLaterPendingFutureOfTheStreamFails
  pendingFuturesOfOtherStreamsOfTheContextFail laterCallsOnTheContextThrowAtOnce synchronizeAfterAFaultThrowsInsteadOfHanging
  hostFunctionAfterAFaultNeverRuns faultedContextClosesCleanly aListenerHearsOfTheFaultOnceAndOfTheFailedOperation)
mkdir -p "$OUT"
OPTS=""
if [ "${HIP_SHIM:-1}" != 0 ]; then
  work="$(mktemp -d)"
  shim="$(bash impl-hip/src/test/native/build-hip-over-cuda.sh "$work" | tail -1)" || { echo "test library build failed"; exit 1; }
  OPTS="-Dsluice.hip.library=$shim -Dsluice.hiprtc.library=$shim -Dsluice.cache.dir=$work/kernel-cache"
fi
failed=0
: > "$OUT/hip-faults.txt"
for t in "${TESTS[@]}"; do
  log="$(mktemp)"
  # shellcheck disable=SC2086
  timeout 120 "$JAVA" --enable-native-access=ALL-UNNAMED -Xss2m -Dsluice.api=hip -Dsluice.hip.faultTest="$t" $OPTS \
    -cp "$GPU/lib/*:$GPU/test/lib/*:$GPU/test/impl-hip" org.junit.platform.console.ConsoleLauncher execute \
    --disable-banner --details=tree --disable-ansi-colors --select-class=dev.sluice.hip.HipConformanceTest > "$log" 2>&1
  rc=$?
  ok="$(sed -n 's/^\[ *\([0-9]*\) tests successful *\]$/\1/p' "$log")"
  bad="$(sed -n 's/^\[ *\([0-9]*\) tests failed *\]$/\1/p' "$log")"
  line="$t: rc=$rc successful=${ok:-?} failed=${bad:-?}"
  [ "$rc" = 0 ] || { failed=1; line="$line :: $(grep -m3 '✘\|FAILED' "$log" | tr -s ' ' | cut -c1-400 | tr '\n' ' ')"; }
  echo "$line" | tee -a "$OUT/hip-faults.txt"
  rm -f "$log"
done
exit "$failed"
