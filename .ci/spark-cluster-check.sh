#!/usr/bin/env bash
# sluice-spark deployed as docs/spark.md says ("Running with spark-submit"), on a Spark standalone cluster of this
# machine, on the CPU backend: a master, a worker (2 cores, 1 GiB) and the executor the worker launches are three JVMs
# of their own, and the job goes through spark-submit in client mode. No Spark distribution and no network: the Spark
# home is a folder of links to the Maven artifacts of the spark module's provided class path (resolved offline), from
# which the worker builds the executor's class path, and the driver's command comes from Spark's launcher
# (org.apache.spark.launcher.Main, what bin/spark-submit runs), so the driver's flags and class path are Spark's own.
#
# The job is the example dev.sluice.examples.SparkJob (the examples jar is the job's jar), which checks its 200,000
# results against the host's and fails otherwise. The check then requires that
#   - spark-submit exited 0 and the job printed its summary;
#   - the executor's log (in the worker's work dir) says Spark initialized SluiceSparkPlugin there;
#   - the plugin's gauges, written by the executor through a CsvSink, show its two contexts (cpu:0 and cpu:1:
#     -Dsluice.cpu.devices=2 in spark.executor.extraJavaOptions) ran every row, each device some, no task failed.
# An executor that cannot start fails it at once (the worker would start one after another), a driver still running
# after SPARK_CHECK_LIMIT seconds (180) too; each failure says what failed, with the errors of the driver's and the
# executor's logs.
# The Sluice jars (sluice-api, -reactive, -arrow, -spark, -cpu and what they need) come from this build's target
# folders: .ci/run runs it after a build that packaged them; the script packages spark, impl-cpu and examples first
# when a jar is missing or older than its sources. Everything the cluster writes goes to a temporary folder, removed
# at the end (SPARK_CHECK_KEEP=1 keeps it), and the daemons are stopped however the script ends. 40 to 60 s on two
# cores, the job's own 15 to 25 of them.
set -euo pipefail
cd "$(dirname "$0")/.."
. .mvn/find-jdk25.sh
java="$JAVA_HOME/bin/java"
command -v setsid > /dev/null || { echo "ci: spark-cluster: needs setsid (util-linux) to stop the cluster" >&2; exit 1; }
rows=200000
partitions=4
limit="${SPARK_CHECK_LIMIT:-180}"   # seconds for the job (about 20 on two cores); the daemons' start has 90 s
start=$(date +%s)

# The main jar of a module (no tests, sources or Javadoc jar), or nothing.
jar_of() {
  local j
  for j in "$1"/target/"$2"-*.jar; do
    case "$j" in *-tests.jar | *-sources.jar | *-javadoc.jar) continue ;; esac
    if [ -f "$j" ]; then echo "$j"; fi
  done
}
modules=(api:sluice-api reactive:sluice-reactive arrow:sluice-arrow spark:sluice-spark impl-cpu:sluice-cpu
  examples:sluice-examples)
stale() {
  local m j
  for m in "${modules[@]}"; do
    j="$(jar_of "${m%%:*}" "${m#*:}")"
    [ -n "$j" ] || return 0
    [ -z "$(find "${m%%:*}/src/main" "${m%%:*}/pom.xml" -newer "$j" -print -quit)" ] || return 0
  done
  return 1
}
if stale; then
  ./mvnw -B -q -o -pl spark,impl-cpu,examples -am package -DskipTests
fi

work="$(mktemp -d)"
daemons=()   # the worker, then the master
driver=""
stop_driver() {
  [ -n "$driver" ] || return 0
  kill -TERM "$driver" 2>/dev/null || true
  for _ in $(seq 1 40); do kill -0 "$driver" 2>/dev/null || break; sleep 0.25; done
  kill -KILL "$driver" 2>/dev/null || true
  wait "$driver" 2>/dev/null || true
  driver=""
}
stop_cluster() {
  # Each daemon leads a process group of its own (setsid), which holds the executor the worker started too.
  local pid
  for pid in "${daemons[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  for pid in "${daemons[@]}"; do
    for _ in $(seq 1 40); do kill -0 -- "-$pid" 2>/dev/null || break; sleep 0.25; done
    kill -KILL -- "-$pid" 2>/dev/null || true
  done
  daemons=()
}
cleanup() {
  stop_driver
  stop_cluster
  if [ "${SPARK_CHECK_KEEP:-0}" = 1 ]; then echo "ci: spark-cluster: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
mkdir -p "$work/spark-home/jars" "$work/sluice" "$work/worker" "$work/local" "$work/metrics"

# The daemons' JVMs as Spark's sbin/start-master.sh and start-worker.sh start them (bin/spark-class): Spark's jars, a
# small heap (SPARK_DAEMON_MEMORY) and no --add-opens, which Spark's launcher adds to drivers and executors only; the
# master and worker of Spark 4.2.0 run so on JDK 25.
daemon=(-Xmx256m -cp "$work/spark-home/jars/*")

# Says what failed, with the errors of the driver's log and of the first executor's (the worker's work dir).
fail() {
  echo "ci: spark-cluster: FAILED: $*" >&2
  local f logs=("$work"/worker/app-*/*/stderr)
  for f in "$work/driver.err" "${logs[0]}"; do
    [ -s "$f" ] || continue
    echo "--- ${f#"$work"/}: its errors, then its last lines" >&2
    grep -E 'ERROR|Exception|Caused by|Error:' "$f" | grep -v -E '^\s+at ' | tail -n 12 >&2 || true
    tail -n 5 "$f" >&2
  done
  exit 1
}

# Spark's jars: the spark module's provided dependencies. Sluice's: this build's jars, and the third-party ones among
# the module's compile and runtime dependencies. One listing with each dependency's scope and file; resolved with -am
# and test-compile, so that the reactor gives Sluice's modules, not the local repository (Maven resolves a reactor
# module to its classes only in a build that ran that phase); every module of the reactor writes the same file, sluice-spark
# (which depends on the others) last. The lines read "group:artifact:type[:classifier]:version:scope:file".
./mvnw -B -q -o -pl spark -am test-compile dependency:list -DincludeScope=test -DoutputAbsoluteArtifactFilename=true \
  -DoutputFile="$work/dependencies.txt"
provided=() third_party=()
while read -r scope file; do
  case "$scope" in
    provided) provided+=("$file") ;;
    compile | runtime) case "$file" in */dev/sluice/* | "$PWD"/*) ;; *) third_party+=("$file") ;; esac ;;
  esac
done < <(sed -n 's/^ *\([^ ]*\).*/\1/p' "$work/dependencies.txt" | awk -F: 'NF >= 6 { print $(NF - 1), $NF }')
[ "${#provided[@]}" -gt 50 ] || fail "the spark module has ${#provided[@]} provided dependencies (Spark's jars)"
ln -s "${provided[@]}" "$work/spark-home/jars/"
ln -s "${third_party[@]}" "$work/sluice/"
for m in "${modules[@]}"; do
  j="$(jar_of "${m%%:*}" "${m#*:}")"
  [ -n "$j" ] || fail "no ${m#*:} jar in ${m%%:*}/target"
  if [ "${m%%:*}" = examples ]; then job_jar="$PWD/$j"; else ln -s "$PWD/$j" "$work/sluice/"; fi
done

export SPARK_HOME="$work/spark-home" SPARK_SCALA_VERSION=2.13 SPARK_LOCAL_IP=127.0.0.1 SPARK_LOCAL_DIRS="$work/local"

# Waits until the daemon's log has the line, or says why not.
await() {
  local pid="$1" log="$2" line="$3" what="$4"
  for _ in $(seq 1 360); do
    grep -qF "$line" "$log" && return 0
    kill -0 "$pid" 2>/dev/null || { tail -n 20 "$log" >&2; fail "the $what exited before it was ready"; }
    sleep 0.25
  done
  tail -n 20 "$log" >&2
  fail "the $what was not ready after 90 s"
}

# Free ports chosen by the system (0); the master's REST submission server, on a fixed port, off.
setsid "$java" "${daemon[@]}" -Dspark.master.rest.enabled=false org.apache.spark.deploy.master.Master --host 127.0.0.1 --port 0 --webui-port 0 > "$work/master.log" 2>&1 &
master=$!
daemons=("$master")
await "$master" "$work/master.log" "New state: ALIVE" master
url="$(sed -n 's/.*Starting Spark master at \(spark:\/\/[^ ]*\).*/\1/p' "$work/master.log")"
[ -n "$url" ] || fail "the master's log names no URL"

setsid "$java" "${daemon[@]}" org.apache.spark.deploy.worker.Worker --host 127.0.0.1 --cores 2 --memory 1g --webui-port 0 --work-dir "$work/worker" "$url" > "$work/worker.log" 2>&1 &
worker=$!
daemons=("$worker" "$master")
await "$worker" "$work/worker.log" "Successfully registered with master" worker

# docs/spark.md's command for a standalone master, in client mode, on the CPU backend; the metrics sink, the driver's
# address and the application UI (off: no port) are the check's own.
submit=(--master "$url" --deploy-mode client
  --conf spark.plugins=dev.sluice.spark.SluiceSparkPlugin
  --conf spark.sluice.api=cpu
  --conf "spark.executor.extraClassPath=$work/sluice/*"
  --conf "spark.driver.extraClassPath=$work/sluice/*"
  --conf "spark.executor.extraJavaOptions=--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Dsluice.cpu.devices=2"
  --conf "spark.driver.extraJavaOptions=--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow"
  --driver-memory 512m --executor-memory 768m
  --conf spark.driver.host=127.0.0.1 --conf spark.ui.enabled=false
  --conf spark.metrics.conf.executor.sink.csv.class=org.apache.spark.metrics.sink.CsvSink
  --conf spark.metrics.conf.executor.sink.csv.period=1
  --conf spark.metrics.conf.executor.sink.csv.unit=seconds
  --conf "spark.metrics.conf.executor.sink.csv.directory=$work/metrics"
  --class dev.sluice.examples.SparkJob "$job_jar" "$rows" "$partitions")

# As bin/spark-class does: the launcher prints its messages, a NUL, a newline, then the command, NUL-separated.
"$java" -Xmx128m -cp "$SPARK_HOME/jars/*" org.apache.spark.launcher.Main org.apache.spark.deploy.SparkSubmit \
  "${submit[@]}" > "$work/command" 2> "$work/launcher.err" || { cat "$work/launcher.err" >&2; fail "Spark's launcher"; }
mapfile -d '' command < "$work/command"
command=("${command[@]:1}")
command[0]="${command[0]#$'\n'}"
[ -x "${command[0]}" ] || fail "Spark's launcher gave no java command: ${command[*]}"

# The driver runs while the check watches the worker: an executor that cannot start (a class missing from
# spark.executor.extraClassPath, a plugin that throws in init) is replaced by the next, and the driver waits for one
# for good; a third executor of the application fails the check at once.
(cd "$work" && exec "${command[@]}" > "$work/driver.out" 2> "$work/driver.err") &
driver=$!
deadline=$(($(date +%s) + limit))
while kill -0 "$driver" 2>/dev/null; do
  launched=("$work"/worker/app-*/*/)
  if [ -d "${launched[0]}" ] && [ "${#launched[@]}" -gt 2 ]; then
    stop_driver
    fail "the worker has started ${#launched[@]} executors for the job: they exit as they start"
  fi
  if [ "$(date +%s)" -ge "$deadline" ]; then
    stop_driver
    fail "spark-submit still ran after the ${limit} s limit"
  fi
  sleep 0.5
done
status=0
wait "$driver" || status=$?
driver=""
[ "$status" -eq 0 ] || fail "spark-submit exited with status $status"
summary="$(grep '^SparkJob: ' "$work/driver.out" || true)"
if ! grep -qF "SparkJob: $rows rows in $partitions partitions" <<<"$summary" || ! grep -qF "$url" <<<"$summary" \
    || ! grep -qF "every value equal to the host's" <<<"$summary"; then
  fail "the job printed no summary of $rows rows on $url: $(cat "$work/driver.out")"
fi
took_job="$(sed -n 's/.*(\([0-9.]* s\))$/\1/p' <<<"$summary")"

# The executor, in the JVM the worker started: Spark loaded the plugin there.
logs=("$work"/worker/app-*/*/stderr)
if [ "${#logs[@]}" -ne 1 ] || [ ! -f "${logs[0]}" ]; then
  fail "expected one executor log under the worker's work dir: ${logs[*]}"
fi
executor="$(basename "$(dirname "${logs[0]}")")"
grep -qF "Initialized executor component for plugin dev.sluice.spark.SluiceSparkPlugin" "${logs[0]}" \
  || fail "executor $executor's log does not say that Spark initialized SluiceSparkPlugin"

# Stop the cluster first: the executor reports its metrics once more as it stops.
stop_cluster

# The plugin's gauges of that executor ("<app>.<executor>.plugin.<class>.device.cpu-N.<name>", docs/spark.md,
# "Metrics"): the last value each file holds.
last() { awk -F, 'NR > 1 { v = $2 } END { print v + 0 }' "$1"; }
prefix="plugin.dev.sluice.spark.SluiceSparkPlugin.device"
total=0 ended=0 failed=0 devices=()
for f in "$work"/metrics/app-*."$executor"."$prefix".cpu-*.rows.csv; do
  [ -f "$f" ] || fail "executor $executor wrote none of the plugin's gauges (no $prefix.cpu-N.rows in $work/metrics)"
  base="${f%.rows.csv}"
  device="${base##*.device.}"
  n="$(last "$f")"
  [ "$n" -gt 0 ] || fail "device $device of executor $executor ran no row"
  total=$((total + n))
  ended=$((ended + $(last "$base.tasks.ended.csv")))
  failed=$((failed + $(last "$base.tasks.failed.csv")))
  devices+=("${device/-/:}")
done
[ "${#devices[@]}" -eq 2 ] || fail "executor $executor's plugin opened ${#devices[*]} device(s) (${devices[*]}), not 2"
[ "$total" -eq "$rows" ] || fail "the plugin's contexts ran $total rows, not $rows"
[ "$failed" -eq 0 ] || fail "$failed of the stage's tasks failed on executor $executor"

echo "ci: spark-cluster: $rows rows through spark-submit on a standalone cluster ($url, executor $executor in its" \
  "own JVM): SluiceSparkPlugin's contexts ${devices[*]} ran $ended tasks, every row, checked against the host's" \
  "(job ${took_job:-?}, check $(($(date +%s) - start)) s)"
