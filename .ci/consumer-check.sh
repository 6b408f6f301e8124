#!/usr/bin/env bash
# A user's project (.ci/consumer) that knows Sluice only through the BOM and the artifacts that
# reproducible-check.sh deployed to target/ci-repo: api + cpu + reactive, no GPU backend. It must build and run
# a reactive pipeline, without --enable-native-access and without any JDK warning.
# Its local repository is a fresh one whose read-only tail is the shared one minus dev/sluice, so Sluice can
# come from target/ci-repo only, and nothing is written to the shared repository.
set -euo pipefail
cd "$(dirname "$0")/.."
. .mvn/find-jdk25.sh

# The README's dependency snippet gives a user's project the compiler settings this one builds with.
compiler_version() { sed -n '/<artifactId>maven-compiler-plugin</{n;s:.*<version>\(.*\)</version>.*:\1:p;}' "$1"; }
release() { sed -n 's:.*<maven.compiler.release>\(.*\)</maven.compiler.release>.*:\1:p' "$1"; }
for setting in compiler_version release; do
  if [ "$("$setting" README.md)" != "$("$setting" .ci/consumer/pom.xml)" ]; then
    echo "ci: consumer: README.md's snippet has $setting '$("$setting" README.md)', .ci/consumer/pom.xml" \
      "'$("$setting" .ci/consumer/pom.xml)'" >&2
    exit 1
  fi
done

repo="$PWD/target/ci-repo"
boms=("$repo"/dev/sluice/sluice-bom/*/sluice-bom-*.pom)
[ -f "${boms[0]}" ] \
  || { echo "ci: consumer: no sluice-bom in $repo (run .ci/reproducible-check.sh first)" >&2; exit 1; }
shared="$(./mvnw -B -q help:evaluate -Dexpression=settings.localRepository -DforceStdout)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tail/dev"
for e in "$shared"/*; do [ "$(basename "$e")" = dev ] || ln -s "$e" "$work/tail/"; done
for e in "$shared"/dev/*; do [ -e "$e" ] && [ "$(basename "$e")" != sluice ] && ln -s "$e" "$work/tail/dev/"; done
cp -r .ci/consumer "$work/project"

MAVEN_OPTS="-Dsun.misc.unsafe.memory.access=allow ${MAVEN_OPTS:-}" ./mvnw -B -q -f "$work/project/pom.xml" \
  -Dmaven.repo.local="$work/repo" -Dmaven.repo.local.tail="$work/tail" \
  -Dsluice.repository="file://$repo" \
  package dependency:build-classpath -Dmdep.outputFile="$work/classpath.txt"
cp="$(cat "$work/classpath.txt")"
for a in sluice-api sluice-cpu sluice-reactive reactor-core; do
  grep -q "$a" <<<"$cp" || { echo "ci: consumer: $a is not on the class path: $cp" >&2; exit 1; }
done
if grep -qE 'sluice-cuda|sluice-hip|jcuda' <<<"$cp"; then
  echo "ci: consumer: a GPU backend is on the class path: $cp" >&2; exit 1
fi
case "$cp" in *"$work/repo/dev/sluice/"*) ;; *) echo "ci: consumer: Sluice did not come from $repo: $cp" >&2; exit 1 ;; esac

"$JAVA_HOME/bin/java" -cp "$work/project/target/sluice-consumer-1.0.jar:$cp" org.example.consumer.Main \
  > "$work/out.txt" 2> "$work/err.txt" || { cat "$work/out.txt" "$work/err.txt" >&2; exit 1; }
if [ -s "$work/err.txt" ]; then
  echo "ci: consumer: the program printed on stderr (a JDK warning?):" >&2; cat "$work/err.txt" >&2; exit 1
fi
grep -q '^consumer: cpu reactive pipeline ok' "$work/out.txt" || { cat "$work/out.txt" >&2; exit 1; }
echo "ci: consumer: built from the BOM and target/ci-repo; $(cat "$work/out.txt")"
