#!/usr/bin/env bash
# Packs what SparkBench and SparkJob (examples/.../SparkBench.java, SparkJob.java) need on the GPU machine beyond
# scripts/gpu-pack.sh's .gpu/: Spark's runtime jars, which the examples and spark modules have at provided scope and
# .gpu/lib/ therefore lacks, and this build's sluice-spark and examples jars, into the git-ignored folders
# .gpu-spark/part1/, part2/, ... of at most PACK_PART_MIB MiB each (a jar is never split), so that each folder goes to
# the machine in a copy of its own, beside the repository's files, under the 64 MiB a copy takes (default: 64 MiB less
# the repository's files and 2 MiB to spare, at most 60). Run here, from anywhere inside the repository, after
# scripts/gpu-pack.sh:
#
#   scripts/gpu-pack-spark.sh               build the spark and examples modules (mvnw -pl spark,examples -am package
#                                           -DskipTests), then pack
#   scripts/gpu-pack-spark.sh --skip-build  pack what spark/target and examples/target hold now
#
# What goes in: the spark module's provided class path (spark-sql_2.13 4.2.0 and what it brings, Arrow 19.0.0 among
# them; mvnw dependency:copy-dependencies -DincludeScope=provided), less
#   - what a local-mode Spark job without state stores, ORC or TLS does not load: rocksdbjni (70 MB, Spark's RocksDB
#     state store and status store), the ORC jars, netty-tcnative's builds for other platforms than linux-x86_64;
#   - any jar .gpu/lib/ already holds (Arrow, Jackson, commons-math3 ...);
# and the sluice-spark and examples jars of this build, which the command below puts before .gpu/lib/ so that they win
# over an older pack's.
#
# Spark's binding of SLF4J to Log4j (log4j-slf4j2-impl) is left out and slf4j-nop (of the parent POM's slf4j.version) put in its
# place: Log4j's core needs java.desktop (java.beans), 9 MB more in the packed runtime, and the benchmark prints its
# figures, not Spark's log.
#
# Spark needs JDK modules beyond Sluice's own: java.sql (Spark SQL's dates and times) and jdk.security.auth (with
# java.naming and java.security.jgss, which it requires: Hadoop's login of the current user, which SparkContext makes
# when it starts; without it SparkSession.getOrCreate fails with "No LoginModule found for ...UnixLoginModule"). gpu-pack.sh's
# default runtime has them; the script checks .gpu/jre.modules and says how to rebuild a runtime packed without them.
set -euo pipefail
# As in gpu-pack.sh: no pipe ends in a reader that stops early (pipefail would make its writer's SIGPIPE fatal).

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
OUT="$ROOT/.gpu-spark"
tree_bytes="$({ git ls-files -z --cached --others --exclude-standard | du -cb --files0-from=- 2>/dev/null || true; } \
  | tail -n 1 | cut -f1)"
default_mib=$(( (64 * 1024 * 1024 - tree_bytes) / (1024 * 1024) - 2 ))
[ "$default_mib" -le 60 ] || default_mib=60
PART_MIB="${PACK_PART_MIB:-$default_mib}"
NEEDED_MODULES="java.sql jdk.security.auth"
BUILD=1
while [ $# -gt 0 ]; do
  case "$1" in
    --skip-build) BUILD=0 ;;
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    *) echo "gpu-pack-spark: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
mvn() { ./mvnw -q -B "$@"; }

# Keep .gpu-spark/ out of git (and so out of the working tree that every copy takes).
EXCLUDE="$(git rev-parse --git-path info/exclude 2>/dev/null || echo .git/info/exclude)"
mkdir -p "$(dirname "$EXCLUDE")"
grep -qx '/.gpu-spark/' "$EXCLUDE" 2>/dev/null || echo '/.gpu-spark/' >> "$EXCLUDE"

if [ "$BUILD" = 1 ]; then
  echo "== build: mvnw -q -pl spark,examples -am package -DskipTests"
  mvn -pl spark,examples -am package -DskipTests
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
SPARK_JAR="$(own_jar spark sluice-spark)"
[ -n "$EXAMPLES_JAR" ] || { echo "gpu-pack-spark: no examples/target/sluice-examples-*.jar (build it, or drop --skip-build)" >&2; exit 1; }
[ -n "$SPARK_JAR" ] || { echo "gpu-pack-spark: no spark/target/sluice-spark-*.jar (build it, or drop --skip-build)" >&2; exit 1; }
all="$(mktemp -d)"
trap 'rm -rf "$all"' EXIT
unzip -Z1 "$EXAMPLES_JAR" > "$all/entries" # a file, not a pipe into grep -q (above)
if ! grep -qx 'dev/sluice/examples/SparkBench.class' "$all/entries"; then
  echo "gpu-pack-spark: $EXAMPLES_JAR holds no SparkBench (built before it existed?)" >&2; exit 1
fi
rm "$all/entries"
[ -d "$ROOT/.gpu/lib" ] || echo "   no .gpu/lib (gpu-pack.sh not run?): nothing is left out as packed there already"
echo "== Spark's runtime class path (the spark module's provided dependencies)"
mvn -pl spark dependency:copy-dependencies -DincludeScope=provided -DexcludeGroupIds=dev.sluice -DoutputDirectory="$all"

left_out=() left_bytes=0
for j in "$all"/*.jar; do
  name="$(basename "$j")"
  why=""
  case "$name" in
    rocksdbjni-*) why="RocksDB state and status stores, which a local job without them does not load" ;;
    log4j-slf4j2-impl-*) why="Spark's SLF4J binding to Log4j, whose core needs java.desktop: slf4j-nop instead" ;;
    orc-*) why="the ORC data source, which the examples do not read" ;;
    netty-tcnative-boringssl-static-*-linux-x86_64.jar) ;;
    netty-tcnative-boringssl-static-*-*.jar) why="TLS natives of another platform" ;;
  esac
  if [ -z "$why" ] && [ -f "$ROOT/.gpu/lib/$name" ]; then
    why="in .gpu/lib"
  fi
  if [ -n "$why" ]; then
    left_out+=("$name ($why)")
    left_bytes=$((left_bytes + $(stat -c %s "$j")))
    rm "$j"
  fi
done
cp "$EXAMPLES_JAR" "$SPARK_JAR" "$all/"
nop="$(mktemp -d)"
slf4j_version="$(sed -n 's:.*<slf4j.version>\(.*\)</slf4j.version>.*:\1:p' pom.xml)" # the parent POM's, as the examples'
mvn -pl spark dependency:copy -Dartifact="org.slf4j:slf4j-nop:$slf4j_version" -DoutputDirectory="$nop"
cp "$nop"/slf4j-nop-*.jar "$all/"
rm -rf "$nop"

# ---- parts: the largest jars first, each into the first part it fits (first-fit decreasing)
limit=$((PART_MIB * 1024 * 1024))
rm -rf "$OUT"
mkdir -p "$OUT"
declare -a part_bytes=()
while read -r size name; do
  if [ "$size" -gt "$limit" ]; then
    echo "gpu-pack-spark: $name is $size bytes, over a part's $PART_MIB MiB (PACK_PART_MIB)" >&2; exit 1
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
echo "== .gpu-spark/"
for i in "${!part_bytes[@]}"; do
  n=$((i + 1))
  total=$((total + part_bytes[i]))
  cp_parts="$cp_parts.gpu-spark/part$n/*:"
  echo "   part$n: $(ls "$OUT/part$n" | wc -l) jars, ${part_bytes[i]} bytes ($(du -sm "$OUT/part$n" | cut -f1) MiB on disk)"
done
echo "   total: $total bytes in $parts part(s); left out: ${#left_out[@]} jars, $left_bytes bytes"
for l in "${left_out[@]}"; do echo "      - $l"; done

missing=""
for m in $NEEDED_MODULES; do
  case ",$(cat "$ROOT/.gpu/jre.modules" 2>/dev/null)," in *",$m,"*) ;; *) missing="$missing $m" ;; esac
done
if [ -n "$missing" ]; then
  echo
  echo "gpu-pack-spark: .gpu/jre lacks${missing} (or .gpu/ is not packed): Spark needs them. Pack .gpu/ with them:"
  echo "   scripts/gpu-pack.sh [--skip-build]     (its default JLINK_MODULES has them; the runtime is rebuilt when they change)"
fi

# Spark's flags on JDK 25 (docs/spark.md): what its launcher would add, and native access for the GPU backends.
FLAGS="--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow --add-opens=java.base/java.nio=ALL-UNNAMED"
FLAGS="$FLAGS --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED"
FLAGS="$FLAGS --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED"
FLAGS="$FLAGS --add-opens=java.base/sun.util.calendar=ALL-UNNAMED"
cat <<EOF

On the GPU machine, which keeps the copied folders while it stays up (a fresh one has none): one copy per folder,
each beside the repository's files, then the run. After each copy, ls shows that the folder arrived. Where a copy
replaces .gpu-spark/ as a whole (the parts copied before are gone: ls says so), move each part out as it arrives
(mkdir -p /tmp/sluice-pack && mv .gpu-spark/partN /tmp/sluice-pack/) and name /tmp/sluice-pack/partN/* in the class path:
   1. copy .gpu/               (scripts/gpu-pack.sh's; not again while the machine has it)   then: ls .gpu/lib | wc -l
EOF
for i in "${!part_bytes[@]}"; do
  n=$((i + 1))
  echo "   $((n + 1)). copy .gpu-spark/part$n/                                                 then: ls .gpu-spark/part$n | wc -l"
done
cat <<EOF
   $((parts + 2)). copy nothing more, run:
      test -d .gpu/lib$(for i in "${!part_bytes[@]}"; do printf ' && test -d .gpu-spark/part%d' $((i + 1)); done) && \\
      .gpu/jre/bin/java $FLAGS -Xms16g -Xmx16g \\
        -cp "${cp_parts}.gpu/lib/*" dev.sluice.examples.SparkBench --api cuda
   (one folder per class path entry: java expands a trailing '*' of an entry, not one in the middle; this build's
   examples and sluice-spark jars come before .gpu/lib's.) dev.sluice.examples.SparkJob runs the same way.
   Options: --rows 67108864 --batch-rows 1048576 --work 0,128 --runs 5 --threads 4 --devices 2 --lanes 4 (the defaults
   on a GPU).
gpu-pack-spark: ok ($total bytes in $parts part(s) of at most $PART_MIB MiB)
EOF
