#!/usr/bin/env bash
# Packs what the GPU machine needs into the git-ignored folder .gpu/ (it has no JDK, no Maven
# and no network). Run here, from anywhere inside the repo:
#
#   scripts/gpu-pack.sh               build (mvnw -DskipTests install), then pack
#   scripts/gpu-pack.sh --skip-build  pack what target/ folders hold now
#   PACK_MVN_ARGS="-pl api,impl-cpu,impl-cuda -am" scripts/gpu-pack.sh
#                                     build and pack only some modules (when others do not build)
#   scripts/gpu-pack.sh --base DIR    also pack the Sluice library jars of another build (each module's target/*.jar
#                                     under DIR, a checkout of an earlier commit built with package) into
#                                     .gpu/base-lib/, for gpu-run.sh paired's PAIRED_BASE: both builds measured in one
#                                     round, by this build's benchmarks
#
# Result (copy .gpu/ to the GPU host beside the repository's files; gpu-run.sh and gpu-session.sh run from there):
#   .gpu/jre.tar.gz    jlink runtime of JDK 25, gzipped (rebuilt only when missing or JLINK_MODULES changes);
#   .gpu/jre/bin/java  starts it (scripts/gpu-java.sh): the first call unpacks it into $TMPDIR (or /tmp). The
#                      modules are what `jdeps --print-module-deps` finds in the packed jars and classes, less
#                      optional uses (Micrometer's java.sql and java.desktop binders, JUnit's java.sql
#                      converters, commons-math3's java.desktop): java.management and jdk.jfr for Sluice's
#                      meters and events, jdk.management for JMH's gc profiler, java.instrument and jdk.attach
#                      for BlockHound, java.xml for the console launcher's XML reports and the conformance
#                      suite's SVG check, java.sql and java.management.rmi for Flink (FlinkBench, with
#                      scripts/gpu-pack-flink.sh's folders), jdk.zipfs for the console launcher's scan of a jar of
#                      test classes (gpu-run.sh tests-flink), jdk.security.auth for Spark (Hadoop's login of the
#                      current user, which SparkContext makes: SparkBench, with scripts/gpu-pack-spark.sh's folders). libjvm.so (25 MB stripped) and java.base are most of it.
#   .gpu/lib/          every module's main jar + runtime dependencies; JCuda's natives jar slimmed
#                      to lib/libJCudaDriver-<v>-linux-x86_64.so
#   .gpu/test/<module>/  target/test-classes of the modules whose tests gpu-run.sh runs (PACK_TEST_MODULES,
#                      default impl-cpu impl-cuda impl-hip reactive)
#   .gpu/test/lib/     their test-only dependencies (sluice-api test-jar, reactor-test, ...) and
#                      junit-platform-console-standalone (which carries the JUnit engines); a jar that
#                      .gpu/lib/ holds is not repeated here
#   .gpu/native/       the C sources of benchmarks/native
# Fails when .gpu/ is over PACK_LIMIT_MIB (default 61, as du counts it: with the repository's own files it must
# stay under the 64 MiB a copy to some GPU hosts allows).
set -euo pipefail
# Under pipefail a pipe must not end in a reader that stops early (head, grep -m1, grep -q, awk's exit, sed's q):
# the writer before it may then die of SIGPIPE, the pipe fails and set -e ends the script at random. Such readers
# read to the end here (awk with a flag, sed -n 1p), or read a file or a variable rather than a pipe.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
GPU="$ROOT/.gpu"
JDK="${SLUICE_JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}"
JLINK_MODULES="${JLINK_MODULES:-java.base,java.logging,jdk.unsupported,java.management,jdk.management,jdk.jfr,java.xml,java.instrument,jdk.attach,java.sql,java.management.rmi,jdk.zipfs,jdk.security.auth}"
read -r -a TEST_MODULES <<< "${PACK_TEST_MODULES:-impl-cpu impl-cuda impl-hip reactive}"
LIMIT_MIB="${PACK_LIMIT_MIB:-61}"
read -r -a MVN_EXTRA <<< "${PACK_MVN_ARGS:-}"
BUILD=1
BASE=""
while [ $# -gt 0 ]; do
  a="$1"; shift
  case "$a" in
    --skip-build) BUILD=0 ;;
    --base) BASE="${1:?gpu-pack: --base needs a directory}"; shift ;;
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    *) echo "gpu-pack: unknown argument $a" >&2; exit 2 ;;
  esac
done

[ -x "$JDK/bin/jlink" ] || { echo "gpu-pack: no JDK 25 at $JDK (set SLUICE_JDK)" >&2; exit 1; }
export JAVA_HOME="$JDK"
JAR="$JDK/bin/jar"
mvn() { ./mvnw -q -B "$@"; }

# Keep .gpu/ out of git even where .gitignore is being edited by others.
EXCLUDE="$(git rev-parse --git-path info/exclude 2>/dev/null || echo .git/info/exclude)"
mkdir -p "$(dirname "$EXCLUDE")"
grep -qx '/.gpu/' "$EXCLUDE" 2>/dev/null || echo '/.gpu/' >> "$EXCLUDE"

if [ "$BUILD" = 1 ]; then
  echo "== build: mvnw -q -DskipTests install ${MVN_EXTRA[*]}"
  mvn -DskipTests install "${MVN_EXTRA[@]}"
fi

mkdir -p "$GPU"

# ---- jre: jlink's runtime in jre.tar.gz, started through jre/bin/java (scripts/gpu-java.sh), which unpacks it on
# the GPU host. Uncompressed in jlink and gzipped whole, it is 21 MB instead of 45 (jlink's own compression, zip-6,
# leaves 26 MB after gzip, and libjvm.so is 25 MB that only an outer compression shrinks).
STAMP="$GPU/jre.modules"
if [ ! -f "$GPU/jre.tar.gz" ] || [ ! -f "$GPU/jre.id" ] || [ "$(cat "$STAMP" 2>/dev/null)" != "$JLINK_MODULES" ]; then
  echo "== jlink: $JLINK_MODULES"
  rm -rf "$GPU/jre" "$GPU/jre.tar.gz" "$GPU/jre.id" "$STAMP"
  image="$(mktemp -d)"
  "$JDK/bin/jlink" --add-modules "$JLINK_MODULES" --strip-debug --no-man-pages \
    --no-header-files --compress=zip-0 --output "$image/jre"
  # The JDK's native libraries keep their symbol tables (5 MB in libjvm.so); hs_err files
  # get less readable without them, nothing else changes.
  if command -v strip >/dev/null; then
    find "$image/jre" -name '*.so' -exec strip --strip-unneeded {} +
  fi
  tar -C "$image/jre" -cf - . | gzip -9 > "$GPU/jre.tar.gz"
  rm -rf "$image"
  # Names the folder the runtime is unpacked into, so that a new runtime never runs an old one's unpacked copy.
  cksum < "$GPU/jre.tar.gz" | cut -d' ' -f1 > "$GPU/jre.id"
  echo "$JLINK_MODULES" > "$STAMP"
else
  echo "== jlink: kept $GPU/jre.tar.gz"
fi
rm -rf "$GPU/jre"
mkdir -p "$GPU/jre/bin"
cp scripts/gpu-java.sh "$GPU/jre/bin/java"
chmod +x "$GPU/jre/bin/java"

# ---- modules (from the root pom, in reactor order)
mapfile -t MODULES < <(sed -n 's:.*<module>\(.*\)</module>.*:\1:p' pom.xml)
artifact_id() { # the module's own artifactId: the first one after </parent> (one sed, no pipe: see below)
  sed -n '/<\/parent>/,${/<artifactId>/{s:.*<artifactId>\([^<]*\)<.*:\1:p;q;};}' "$1/pom.xml"
}

rm -rf "$GPU/lib" "$GPU/test" "$GPU/native"
mkdir -p "$GPU/lib" "$GPU/test/lib" "$GPU/native"

echo "== jars"
# The stress module (jcstress tests of the stream core) runs on any CPU and never needs the GPU machine; its
# dependencies (jcstress, JNA) would cost MiBs of the pack. The Micrometer binder's jar comes along, for
# MeterBenchmark on the GPU; Micrometer itself is already there as a dependency of the benchmarks.
# Test-only dependencies come from the modules whose tests are packed (-am: and the modules they need, so that
# their POMs come from here, not from the local repository). The test kit (sluice-test) is a JUnit extension for users'
# builds: its JUnit API at run time would sit on the class path beside the console launcher's own, of another version.
# flink-dist is the shaded jar for a Flink installation's lib/: a second copy of the api and the backends, and a
# System.LoggerFinder that sends every System.Logger record to SLF4J (to no provider here: the conformance tests that
# expect a warning logged would see none).
SKIP_MODULES=" stress testkit flink-dist "
DEP_PL=() TEST_DEP_PL=()
case " ${MVN_EXTRA[*]} " in
  *" -pl "*|*" --projects "*) ;;
  *) DEP_PL=(-pl '!stress,!micrometer,!testkit,!flink-dist'); TEST_DEP_PL=(-pl "$(IFS=,; echo "${TEST_MODULES[*]}")" -am) ;;
esac
for m in "${MODULES[@]}"; do
  [ -f "$m/pom.xml" ] && [ -d "$m/src" ] || continue # modules with code (not the BOM)
  case "$SKIP_MODULES" in *" $m "*) continue ;; esac
  aid="$(artifact_id "$m")"
  main=""
  for j in "$m"/target/"$aid"-*.jar; do
    case "$j" in *-tests.jar|*-sources.jar|*-javadoc.jar|*-test-sources.jar|*'*'*) continue ;; esac
    main="$j"
  done
  if [ -n "$main" ]; then cp "$main" "$GPU/lib/"; else echo "   $m: no main jar (not built?)"; fi
  for t in "$m"/target/"$aid"-*-tests.jar; do [ -f "$t" ] && cp "$t" "$GPU/test/lib/"; done
  # Test classes only of the modules whose tests run there: api's, for one, come as the test-jar above.
  case " ${TEST_MODULES[*]} " in *" $m "*) ;; *) continue ;; esac
  if [ -d "$m/target/test-classes" ] && [ -n "$(ls -A "$m/target/test-classes")" ]; then
    mkdir -p "$GPU/test/$m"
    cp -r "$m/target/test-classes/." "$GPU/test/$m/"
  fi
done

echo "== dependencies"
# Sibling modules come from their target/ folders above; JUnit comes as the standalone launcher,
# whose engines would be registered twice if the separate engine jars sat beside it.
mvn dependency:copy-dependencies "${MVN_EXTRA[@]}" "${DEP_PL[@]}" -DincludeScope=runtime \
  -DexcludeGroupIds=dev.sluice -DoutputDirectory="$GPU/lib"
mvn dependency:copy-dependencies "${MVN_EXTRA[@]}" "${TEST_DEP_PL[@]}" -DincludeScope=test \
  -DexcludeGroupIds=dev.sluice,org.junit.jupiter,org.junit.platform,org.junit.vintage,org.opentest4j,org.apiguardian \
  -DoutputDirectory="$GPU/test/lib"
for j in "$GPU"/test/lib/*.jar; do # keep each jar once: what the runtime has, tests do not repeat
  [ -f "$GPU/lib/$(basename "$j")" ] && rm "$j"
done
JUNIT_PLATFORM="$(sed -n 's:.*<junit.platform.version>\(.*\)</junit.platform.version>.*:\1:p' pom.xml)"
JUNIT_PLATFORM="${JUNIT_PLATFORM:-1.11.4}"
mvn -N dependency:copy \
  -Dartifact="org.junit.platform:junit-platform-console-standalone:$JUNIT_PLATFORM" \
  -DoutputDirectory="$GPU/test/lib"

# ---- JCuda natives: keep only the driver binding for linux-x86_64
for nj in "$GPU"/lib/jcuda-natives-*.jar "$GPU"/test/lib/jcuda-natives-*.jar; do
  [ -f "$nj" ] || continue
  case "$nj" in
    *linux-x86_64.jar) ;;
    *) rm "$nj"; continue ;;
  esac
  tmp="$(mktemp -d)"
  entry="$(unzip -Z1 "$nj" | awk '/^lib\/libJCudaDriver-.*-linux-x86_64\.so$/ && !found { print; found = 1 }')"
  if [ -z "$entry" ]; then
    echo "gpu-pack: $nj holds no lib/libJCudaDriver-*-linux-x86_64.so" >&2; exit 1
  fi
  (cd "$tmp" && unzip -q "$nj" "$entry")
  before="$(du -k "$nj" | cut -f1)"
  rm "$nj"
  "$JAR" --create --no-manifest --file "$nj" -C "$tmp" lib
  rm -rf "$tmp"
  echo "   slimmed $(basename "$nj"): ${before} KiB -> $(du -k "$nj" | cut -f1) KiB ($entry)"
done

# ---- another build's Sluice jars (--base), measured beside this one's
rm -rf "$GPU/base-lib"
if [ -n "$BASE" ]; then
  mkdir -p "$GPU/base-lib"
  for m in api impl-cpu impl-cuda impl-hip reactive micrometer; do # not benchmarks: one benchmark measures both
    for jar in "$BASE/$m"/target/sluice-*-SNAPSHOT.jar; do
      [ -f "$jar" ] && cp "$jar" "$GPU/base-lib/"
    done
  done
  [ -n "$(ls "$GPU/base-lib")" ] || { echo "gpu-pack: no Sluice jars under $BASE/*/target" >&2; exit 1; }
  echo "   base-lib: $(ls "$GPU/base-lib" | tr '\n' ' ') (from $BASE, $(git -C "$BASE" rev-parse --short HEAD 2>/dev/null || echo '?'))"
fi

# ---- native sources
cp benchmarks/native/*.c benchmarks/native/*.h benchmarks/native/Makefile benchmarks/native/README.md "$GPU/native/" 2>/dev/null || true

# ---- report
echo "== .gpu/"
du -sh "$GPU"/jre.tar.gz "$GPU"/lib "$GPU"/test "$GPU"/native
ls "$GPU/lib" | sed 's/^/   lib: /'
ls "$GPU/test" | sed 's/^/   test: /'
total_mib="$(du -sm "$GPU" | cut -f1)"
echo "   $(du -sb "$GPU" | cut -f1) bytes in files, ${total_mib} MiB on disk"
du -sh "$GPU"
if [ "$total_mib" -gt "$LIMIT_MIB" ]; then
  echo "gpu-pack: .gpu is ${total_mib} MiB, over the ${LIMIT_MIB} MiB limit" >&2
  exit 1
fi
echo "gpu-pack: ok (${total_mib} MiB). On the GPU host, with .gpu/ in the repository's root: bash scripts/gpu-run.sh [what...]"
