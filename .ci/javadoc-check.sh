#!/usr/bin/env bash
# Every public or protected type, member, constructor and enum constant of the published modules has a Javadoc
# comment: runs the javadoc tool on them and fails, listing each one, if it reports "warning: no comment" or "use of
# default constructor, which does not provide a comment".
# Why a script rather than the build: the finest doclint group, "missing", also reports every missing @param,
# @return and @throws, and javadoc's -Werror (the plugin's failOnWarnings) fails on any warning; neither can pick out
# the comments alone. Run after a build or on its own (it compiles what it needs; about a minute on two cores).
set -euo pipefail
cd "$(dirname "$0")/.."
modules="api,reactive,impl-cpu,impl-cuda,impl-hip,micrometer,arrow,flink,flink-dist,spark,testkit"

# The plugin skips a module whose javadoc command line has not changed since its last run ("Skipping javadoc
# generation"), even when the sources have: forget the last run, so that every module is read again.
for m in ${modules//,/ }; do
  rm -f "$m/target/maven-javadoc-plugin-stale-data.txt"
done

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
# Not -q: the warnings are logged at WARNING level. compile first, so that the reactor resolves the modules from
# their target/classes without a package or install.
if ! ./mvnw -B -pl "$modules" -am compile javadoc:javadoc > "$log" 2>&1; then
  tail -60 "$log" >&2
  echo "ci: javadoc: FAILED, the javadoc run itself failed (above)" >&2
  exit 1
fi

runs=$(grep -c -E '^\[INFO\] --- javadoc:[^ ]+:javadoc ' "$log" || true)
generated=$(grep -c 'generating javadoc' "$log" || true)
# One run per module (the parent POM's is skipped as a report goal); fewer means a module was skipped.
expected=$(( $(tr ',' '\n' <<<"$modules" | wc -l) ))
if [ "$generated" -lt "$expected" ]; then
  grep -E 'javadoc' "$log" >&2 || true
  echo "ci: javadoc: FAILED, javadoc ran on $generated of $expected modules ($runs javadoc goals)" >&2
  exit 1
fi

missing="$(grep -E 'warning: (no comment|use of default constructor, which does not provide a comment)$' "$log" \
  | sed -E "s/^\[WARNING\] //; s|^$PWD/||" | sort -u -t: -k1,1 -k2,2n || true)"
if [ -n "$missing" ]; then
  echo "$missing" >&2
  echo "ci: javadoc: FAILED, $(wc -l <<<"$missing") public members without a Javadoc comment (above)" >&2
  exit 1
fi
echo "ci: javadoc: every public member of $modules has a comment"
