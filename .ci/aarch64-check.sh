#!/usr/bin/env bash
# The build as an aarch64 machine resolves it: Maven's OS profile activation reads os.name and os.arch, so
# -Dos.arch=aarch64 makes it pick what linux-aarch64 (and, with -Dos.name, macOS on Apple silicon) would get.
# JCuda publishes no natives jar there: the reactor must still resolve and build, without jcuda-natives; the CUDA
# backend must then say which piece is missing, and the CPU demo must run on that class path.
set -euo pipefail
cd "$(dirname "$0")/.."
. .mvn/find-jdk25.sh

check_platform() {
  local os="$1" arch="$2" cp="target/classpath-$3.txt"
  ./mvnw -B -q "-Dos.name=$os" -Dos.arch="$arch" -DskipTests -Dsluice.bench.smoke=false \
    package dependency:build-classpath -Dmdep.outputFile="$cp" -Dmdep.includeScope=runtime
  if grep -q 'jcuda-natives' examples/"$cp"; then
    echo "ci: $3: jcuda-natives on the class path, but JCuda publishes none for this platform" >&2; return 1
  fi
  grep -q 'jcuda-12' examples/"$cp" || { echo "ci: $3: JCuda itself is missing from the class path" >&2; return 1; }
  echo "ci: $3: the reactor resolves and builds (JCuda without natives)"
}
check_platform Linux aarch64 linux-aarch64
check_platform "Mac OS X" aarch64 apple-aarch64

# At run time, on the linux-aarch64 class path, as that JVM reports itself (os.arch=aarch64).
cp="examples/target/classes:$(cat examples/target/classpath-linux-aarch64.txt)"
java="$JAVA_HOME/bin/java"
out="$("$java" -Dos.arch=aarch64 --enable-native-access=ALL-UNNAMED -Dsluice.api=cuda -cp "$cp" \
  dev.sluice.examples.Quickstart 2>&1 || true)"
expected="JCuda 12.6.0 has no native driver binding for linux-aarch64"
if ! grep -qF "$expected" <<<"$out"; then
  echo "ci: linux-aarch64: the CUDA backend does not say '$expected'; it said:" >&2; echo "$out" >&2; exit 1
fi
grep -qF "BackendUnavailableException" <<<"$out" || { echo "ci: linux-aarch64: expected a BackendUnavailableException: $out" >&2; exit 1; }
echo "ci: linux-aarch64: CUDA reports: $(grep -m1 -oF "$expected" <<<"$out") ..."
# Its output is read whole before grep -q looks at it: piped, grep -q would stop at the line and the demo, still
# writing, die of SIGPIPE, which pipefail reports as a failure.
demo="$("$java" -Dos.arch=aarch64 -Dsluice.api=cpu -cp "$cp" dev.sluice.examples.Demo --size 256Ki --repeat 1 \
  --streams 1,2)" || { echo "ci: linux-aarch64: the CPU demo failed: $demo" >&2; exit 1; }
grep -q '^result: all 256 Ki values equal' <<<"$demo" || { echo "ci: linux-aarch64: the CPU demo failed: $demo" >&2; exit 1; }
echo "ci: linux-aarch64: the CPU demo runs"
