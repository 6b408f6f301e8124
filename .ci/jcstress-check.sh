#!/usr/bin/env bash
# A short run of the jcstress tests of the stream core (the stress module, dev.sluice.stress.*Stress): every test, briefly,
# under a hard time limit, failing if any test saw a forbidden outcome or could not run. Run after a build that
# packaged the stress module (.ci/run runs it after the other checks); builds it when its class path is missing.
# The run: jcstress's quick preset (each test in each of its JVM configurations, one fork and one stress fork) cut to
# 2 iterations of 100 ms: three to four minutes for seven tests on two cores (183-211 s measured for six), and more on a machine
# busy with other builds (300 s ran out at 76 of 84 runs once): the limit stops a hung run, not a slow one. JCSTRESS_OPTS
# and JCSTRESS_LIMIT (seconds) override the options and the limit; longer runs: see CONTRIBUTING.md, "Stress tests".
set -euo pipefail
cd "$(dirname "$0")/.."
. .mvn/find-jdk25.sh
opts="${JCSTRESS_OPTS:--m quick -iters 2 -time 100}"
limit="${JCSTRESS_LIMIT:-480}"

classpath() {
  [ -f stress/target/stress-classpath.txt ] && [ -d stress/target/classes/META-INF ] || return 1
  local cp
  cp="$(cat stress/target/stress-classpath.txt)"
  local IFS=:
  for e in $cp; do [ -e "$e" ] || return 1; done
  echo "$PWD/stress/target/classes:$cp"
}
cp="$(classpath)" || { ./mvnw -B -q -pl stress -am package -DskipTests; cp="$(classpath)"; }

tests=$(wc -l < stress/target/classes/META-INF/TestList)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
set +e
# jcstress writes its result blob into the working directory: run it in a scratch one.
(cd "$work" && timeout --kill-after=10 "$limit" "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED \
  -cp "$cp" org.openjdk.jcstress.Main $opts -r "$work/report") > "$work/log" 2>&1
status=$?
set -e
took=$(( $(date +%s) - start ))

# The last progress line: "(Results: N planned; P passed, F failed, S soft errs, H hard errs)".
last="$(grep -E '^\(Results: ' "$work/log" | tail -1 || true)"
read -r planned passed failed soft hard < <(sed -E 's/^\(Results: ([0-9]+) planned; ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) soft errs, ([0-9]+) hard errs\)$/\1 \2 \3 \4 \5/' <<<"${last:-(Results: 0 planned; 0 passed, 0 failed, 0 soft errs, 0 hard errs)}")
if [ "$status" -ne 0 ] || [ "$failed" -ne 0 ] || [ "$hard" -ne 0 ] || [ "$planned" -eq 0 ] || [ "$passed" -ne "$planned" ]; then
  # What jcstress said: its closing summary (each failed test's outcomes across all configurations), or, when it
  # did not get that far, the end of its output.
  if grep -q '^RUN RESULTS:' "$work/log"; then
    sed -n '/^RUN RESULTS:/,$p' "$work/log" | grep -v -E '^\s*WARNING: |^\s+at ' >&2
  else
    grep -v -E '^\s*WARNING: ' "$work/log" | tail -40 >&2
  fi
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then echo "ci: jcstress: stopped at the ${limit} s limit" >&2; fi
  echo "ci: jcstress: FAILED, $tests tests, $passed of $planned runs passed, $failed failed, $hard errors (${took} s: $opts)" >&2
  exit 1
fi
echo "ci: jcstress: $tests tests, $planned runs, 0 failed (${took} s: $opts)"
