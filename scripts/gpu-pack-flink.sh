#!/usr/bin/env bash
# Packs what FlinkBench (examples/.../FlinkBench.java) needs on the GPU machine beyond scripts/gpu-pack.sh's .gpu/:
# Flink's runtime jars, which the examples module has at provided scope and .gpu/lib/ therefore lacks, into the
# git-ignored folders .gpu-flink/part1/, part2/, ... of at most PACK_PART_MIB MiB each (a jar is never split), so that
# each folder goes to the machine in a copy of its own, beside the repository's files, under the 64 MiB a copy takes
# (default: 64 MiB less the repository's files and 2 MiB to spare, at most 60). Run here, from
# anywhere inside the repository, after scripts/gpu-pack.sh (whose install puts the Sluice modules into the local
# Maven repository, where the class path below is resolved from):
#
#   scripts/gpu-pack-flink.sh               build the examples and flink modules (mvnw -pl examples,flink -am package),
#                                           then pack
#   scripts/gpu-pack-flink.sh --skip-build  pack what examples/target and flink/target hold now
#   scripts/gpu-pack-flink.sh --tests       also pack the flink module's tests, for gpu-run.sh tests-flink: its test
#                                           class path (mvnw -pl flink dependency:copy-dependencies -DincludeScope=test:
#                                           flink-test-utils, Flink's test jars, Arrow's allocator, ...) less what is
#                                           packed already or in .gpu/lib and .gpu/test/lib, and its test classes as the
#                                           jar sluice-flink-test-classes.jar, into the same parts
#
# What goes in: Flink's streaming API, flink-clients and what they bring (flink-runtime ...; resolved through a throwaway
# POM under this build's parent: the examples module's own provided class path also holds Spark's), less
#   - what an embedded MiniCluster without high availability, profiling or shuffle compression does not load:
#     async-profiler, snappy-java; RocksDB (rocksdbjni, frocksdbjni, flink-statebackend-rocksdb) and test libraries
#     (JUnit, flink-test-utils, ...) where a dependency brings them. Not ZooKeeper's flink-shaded-zookeeper (12 MB),
#     although high availability is off: Flink 2.3.0's OneInputStreamTask takes Guava's Iterables from the copy shaded
#     into it (org.apache.flink.shaded.curator5...), so a task with a network input (any edge that is not chained: a
#     rebalance, a keyBy, a window) fails without it with NoClassDefFoundError; FlinkBench's jobs, chained throughout,
#     ran without it;
#   - any jar .gpu/lib/ already holds (commons-math3 comes with JMH);
# and the examples and sluice-flink jars of this build (the examples jar holds FlinkBench), which the command below
# puts before .gpu/lib/ so that they win over an older pack's.
#
# Flink needs two JDK modules beyond Sluice's own: java.sql (Flink's type information names java.sql.Date) and
# java.management.rmi (the TaskManager's JMX; without it the embedded TaskManager never registers and every job fails
# with "Could not acquire the minimum required resources"). gpu-pack.sh's runtime includes both; the script checks
# .gpu/jre.modules and, for a runtime packed before, says how to rebuild it with them. With --tests, also for jdk.zipfs
# (the JUnit console launcher reads the jar of test classes through the zip file system).
set -euo pipefail
# As in gpu-pack.sh: no pipe ends in a reader that stops early (pipefail would make its writer's SIGPIPE fatal).

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
OUT="$ROOT/.gpu-flink"
# The repository's files travel with every copy: tracked ones and those untracked that git does not ignore.
# (du fails on a tracked file deleted from the work tree, and still prints its total.)
tree_bytes="$({ git ls-files -z --cached --others --exclude-standard | du -cb --files0-from=- 2>/dev/null || true; } \
  | tail -n 1 | cut -f1)"
default_mib=$(( (64 * 1024 * 1024 - tree_bytes) / (1024 * 1024) - 2 ))
[ "$default_mib" -le 60 ] || default_mib=60
PART_MIB="${PACK_PART_MIB:-$default_mib}"
NEEDED_MODULES="java.sql java.management.rmi"
TESTS_NEEDED_MODULES="jdk.zipfs" # the console launcher scans the jar of test classes through the zip file system
BUILD=1
TESTS=0
while [ $# -gt 0 ]; do
  case "$1" in
    --skip-build) BUILD=0 ;;
    --tests) TESTS=1 ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "gpu-pack-flink: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
mvn() { ./mvnw -q -B "$@"; }
JDK="${SLUICE_JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}"

# Keep .gpu-flink/ out of git (and so out of the working tree that every copy takes) even where .gitignore is being
# edited by others.
EXCLUDE="$(git rev-parse --git-path info/exclude 2>/dev/null || echo .git/info/exclude)"
mkdir -p "$(dirname "$EXCLUDE")"
grep -qx '/.gpu-flink/' "$EXCLUDE" 2>/dev/null || echo '/.gpu-flink/' >> "$EXCLUDE"

if [ "$BUILD" = 1 ]; then
  echo "== build: mvnw -q -pl examples,flink -am package -DskipTests"
  mvn -pl examples,flink -am package -DskipTests # compiles the test classes too
fi

own_jar() { # the main jar of module $1 (artifact $2) in its target/, or nothing
  local j main=""
  for j in "$1"/target/"$2"-*.jar; do
    case "$j" in *-tests.jar|*-sources.jar|*-javadoc.jar|*'*'*) continue ;; esac
    main="$j"
  done
  echo "$main"
}
EXAMPLES_JAR="$(own_jar examples sluice-examples)"
FLINK_JAR="$(own_jar flink sluice-flink)"
[ "$TESTS" = 0 ] || [ -x "$JDK/bin/jar" ] || { echo "gpu-pack-flink: no JDK 25 at $JDK (set SLUICE_JDK)" >&2; exit 1; }
[ -n "$EXAMPLES_JAR" ] || { echo "gpu-pack-flink: no examples/target/sluice-examples-*.jar (build it, or drop --skip-build)" >&2; exit 1; }
all="$(mktemp -d)"
trap 'rm -rf "$all"' EXIT
unzip -Z1 "$EXAMPLES_JAR" > "$all/entries" # a file, not a pipe into grep -q (above)
if ! grep -qx 'dev/sluice/examples/FlinkBench.class' "$all/entries"; then
  echo "gpu-pack-flink: $EXAMPLES_JAR holds no FlinkBench (built before it existed?)" >&2; exit 1
fi
rm "$all/entries"
echo "== Flink's runtime class path (what flink-streaming-java and flink-clients bring)"
# Resolved through a throwaway POM whose parent is this build's (so its dependency management applies) and whose only
# dependencies are the two Flink artifacts the examples module has at provided scope: that module's own provided class
# path also holds Spark's (SparkBench, SparkJob), 200 MB that a Flink job does not load.
flink_pom="$(mktemp -d)"
cat > "$flink_pom/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <parent>
    <groupId>dev.sluice</groupId>
    <artifactId>sluice-parent</artifactId>
    <version>$(sed -n '0,/<artifactId>sluice-parent<\/artifactId>/d; s:.*<version>\(.*\)</version>.*:\1:p' pom.xml | head -n 1)</version>
    <relativePath>$ROOT/pom.xml</relativePath>
  </parent>
  <artifactId>flink-runtime-class-path</artifactId>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.flink</groupId><artifactId>flink-streaming-java</artifactId></dependency>
    <dependency><groupId>org.apache.flink</groupId><artifactId>flink-clients</artifactId></dependency>
  </dependencies>
</project>
POM
./mvnw -q -B -f "$flink_pom/pom.xml" dependency:copy-dependencies -DoutputDirectory="$all"
rm -rf "$flink_pom"

left_out=() left_bytes=0
declare -A decided=() # the jars this pass keeps or leaves out, which the tests' pass does not weigh again
for j in "$all"/*.jar; do
  name="$(basename "$j")"
  why=""
  case "$name" in
    async-profiler-*|snappy-java-*) why="not loaded by an embedded MiniCluster" ;;
    rocksdbjni-*|frocksdbjni-*|flink-statebackend-rocksdb-*) why="RocksDB" ;;
    junit-*|opentest4j-*|apiguardian-*|hamcrest-*|assertj-*|mockito-*|flink-test-utils*|flink-runtime-*-tests.jar)
      why="test library" ;;
  esac
  if [ "$why" = "test library" ] && [ "$TESTS" = 1 ]; then
    rm "$j"; continue # the tests' pass below brings back those the flink module's tests use
  fi
  decided[$name]=1
  if [ -z "$why" ] && [ -f "$ROOT/.gpu/lib/$name" ]; then
    why="in .gpu/lib"
  fi
  if [ -n "$why" ]; then
    left_out+=("$name ($why)")
    left_bytes=$((left_bytes + $(stat -c %s "$j")))
    rm "$j"
  fi
done
cp "$EXAMPLES_JAR" "$all/"
if [ -n "$FLINK_JAR" ]; then cp "$FLINK_JAR" "$all/"; else echo "   flink/target has no sluice-flink jar: .gpu/lib's is used"; fi

# ---- the flink module's tests (--tests): its test class path beyond what is packed, and its test classes in a jar
if [ "$TESTS" = 1 ]; then
  echo "== the flink module's test class path (its test scope, less what is packed already)"
  if [ ! -d flink/target/test-classes ] || [ -z "$(ls -A flink/target/test-classes)" ]; then
    echo "gpu-pack-flink: flink/target/test-classes is empty (build it, or drop --skip-build)" >&2; exit 1
  fi
  [ -d "$ROOT/.gpu/test/lib" ] || echo "   no .gpu/test/lib (gpu-pack.sh not run?): the JUnit console launcher and sluice-api's test jar come from there"
  tdeps="$(mktemp -d)"
  # The JUnit engines come with the console launcher in .gpu/test/lib, as for gpu-pack.sh's tests; Sluice's modules
  # from .gpu/lib (and sluice-api's test jar from .gpu/test/lib).
  mvn -pl flink dependency:copy-dependencies -DincludeScope=test \
    -DexcludeGroupIds=dev.sluice,org.junit.jupiter,org.junit.platform,org.junit.vintage,org.opentest4j,org.apiguardian \
    -DoutputDirectory="$tdeps"
  added=0
  for j in "$tdeps"/*.jar; do
    name="$(basename "$j")"
    why=""
    case "$name" in
      zookeeper-*|curator-*|async-profiler-*|snappy-java-*) why="not loaded by an embedded MiniCluster" ;;
      rocksdbjni-*|frocksdbjni-*|flink-statebackend-rocksdb-*) why="RocksDB" ;;
      testcontainers-*|docker-java-*|duct-tape-*|jna-*) why="Testcontainers (Docker), which no test of the module starts" ;;
      icu4j-*) why="the Table API's Unicode functions, which no test of the module calls" ;;
      byte-buddy-*) why="AssertJ's proxies and Mockito's mocks, which no test of the module uses" ;;
      log4j-*) why="Log4j, whose core needs java.desktop, which the runtime leaves out: Flink logs to slf4j-nop" ;;
      slf4j-api-1.*) why="SLF4J 1; SLF4J 2 comes with slf4j-nop" ;;
    esac
    if [ -n "${decided[$name]:-}" ]; then rm "$j"; continue; fi # packed or left out already
    if [ -z "$why" ] && [ -f "$ROOT/.gpu/lib/$name" ]; then why="in .gpu/lib"; fi
    if [ -z "$why" ] && [ -f "$ROOT/.gpu/test/lib/$name" ]; then why="in .gpu/test/lib"; fi
    if [ -n "$why" ]; then
      left_out+=("$name ($why)")
      left_bytes=$((left_bytes + $(stat -c %s "$j")))
      rm "$j"
    else
      mv "$j" "$all/"
      added=$((added + 1))
    fi
  done
  rm -rf "$tdeps"
  "$JDK/bin/jar" --create --file "$all/sluice-flink-test-classes.jar" -C flink/target/test-classes .
  echo "   $added jars of the test class path, and sluice-flink-test-classes.jar ($(stat -c %s "$all/sluice-flink-test-classes.jar") bytes)"
fi

# ---- parts: the largest jars first, each into the first part it fits (first-fit decreasing)
limit=$((PART_MIB * 1024 * 1024))
rm -rf "$OUT"
mkdir -p "$OUT"
declare -a part_bytes=()
while read -r size name; do
  if [ "$size" -gt "$limit" ]; then
    echo "gpu-pack-flink: $name is $size bytes, over a part's $PART_MIB MiB (PACK_PART_MIB)" >&2; exit 1
  fi
  placed=""
  for i in "${!part_bytes[@]}"; do
    if [ $((part_bytes[i] + size)) -le "$limit" ]; then placed="$i"; break; fi
  done
  if [ -z "$placed" ]; then placed="${#part_bytes[@]}"; part_bytes+=(0); fi
  part_bytes[placed]=$((part_bytes[placed] + size))
  mkdir -p "$OUT/part$((placed + 1))"
  cp "$all/$name" "$OUT/part$((placed + 1))/"
done < <(for j in "$all"/*.jar; do echo "$(stat -c %s "$j") $(basename "$j")"; done | sort -rn)

# ---- report
parts=${#part_bytes[@]}
total=0
cp_parts=""
echo "== .gpu-flink/"
for i in "${!part_bytes[@]}"; do
  n=$((i + 1))
  total=$((total + part_bytes[i]))
  cp_parts="$cp_parts.gpu-flink/part$n/*:"
  echo "   part$n: $(ls "$OUT/part$n" | wc -l) jars, ${part_bytes[i]} bytes ($(du -sm "$OUT/part$n" | cut -f1) MiB on disk)"
  ls "$OUT/part$n" | sed 's/^/      /'
done
echo "   total: $total bytes in $parts part(s); left out: ${#left_out[@]} jars, $left_bytes bytes"
for l in "${left_out[@]}"; do echo "      - $l"; done

missing=""
[ "$TESTS" = 0 ] || NEEDED_MODULES="$NEEDED_MODULES $TESTS_NEEDED_MODULES"
for m in $NEEDED_MODULES; do
  case ",$(cat "$ROOT/.gpu/jre.modules" 2>/dev/null)," in *",$m,"*) ;; *) missing="$missing $m" ;; esac
done
if [ -n "$missing" ]; then
  echo
  echo "gpu-pack-flink: .gpu/jre lacks${missing} (or .gpu/ is not packed): Flink (and its tests) need them. Pack .gpu/ with them:"
  echo "   JLINK_MODULES=\"java.base,java.logging,jdk.unsupported,java.management,jdk.management,jdk.jfr,java.xml,java.instrument,jdk.attach,java.sql,java.management.rmi,jdk.zipfs\" scripts/gpu-pack.sh [--skip-build]"
fi

cat <<EOF

On the GPU machine, which keeps the copied folders while it stays up (a fresh one has none): one copy per folder,
each beside the repository's files, then the run. After each copy, ls shows that the folder arrived. Where a copy
replaces .gpu-flink/ as a whole (the parts copied before are gone: ls says so), move each part out as it arrives
(mkdir -p /tmp/sluice-pack && mv .gpu-flink/partN /tmp/sluice-pack/) and name /tmp/sluice-pack/partN/* in the class path:
   1. copy .gpu/               (scripts/gpu-pack.sh's; not again while the machine has it)   then: ls .gpu/lib | wc -l
EOF
for i in "${!part_bytes[@]}"; do
  n=$((i + 1))
  echo "   $((n + 1)). copy .gpu-flink/part$n/                                                 then: ls .gpu-flink/part$n | wc -l"
done
cat <<EOF
   $((parts + 2)). copy nothing more, run:
      test -d .gpu/lib$(for i in "${!part_bytes[@]}"; do printf ' && test -d .gpu-flink/part%d' $((i + 1)); done) && \\
      .gpu/jre/bin/java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xms16g -Xmx16g \\
        -cp "${cp_parts}.gpu/lib/*" dev.sluice.examples.FlinkBench --api cuda
   (one folder per class path entry: java expands a trailing '*' of an entry, not one in the middle, so
   ".gpu-flink/*/*" would find nothing; this build's examples and sluice-flink jars come before .gpu/lib's.)
   Options: --batches 256 --floats 1048576 --work 1,128 --runs 5 --devices 2 --lanes 4 (the defaults on a GPU).
EOF
if [ "$TESTS" = 1 ]; then
  cat <<EOF
   The flink module's tests (packed with --tests), on the GPUs there are, instead of FlinkBench or after it:
      test -d .gpu/lib$(for i in "${!part_bytes[@]}"; do printf ' && test -d .gpu-flink/part%d' $((i + 1)); done) && \\
      bash scripts/gpu-run.sh tests-flink   (summary.txt: tests found, successful, failed; "aborted" are the skips)
EOF
fi
cat <<EOF
gpu-pack-flink: ok ($total bytes in $parts part(s) of at most $PART_MIB MiB)
EOF
