#!/usr/bin/env bash
# A user's project (.ci/consumer) that knows Sluice only through the BOM and the artifacts that
# reproducible-check.sh deployed to target/ci-repo: api + cpu + reactive, no GPU backend. It must build and run
# a reactive pipeline, without --enable-native-access and without any JDK warning.
# Then the README's and docs/first-program.md's projects, made of the blocks those pages mark with
# "<!-- ci: TAG [PATH]" and run with the commands they show, exactly as written (only /path/to/jdk-25 becomes the
# JDK 25, and `mvn` this repository's wrapper), with a `java` on the PATH that is not the JDK 25: the pages cannot
# drift from what works.
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

# .ci/consumer-arrow: sluice-arrow with only the Arrow jars docs/arrow.md names (arrow-vector, arrow-memory-core), not
# Arrow's allocation managers. With Arrow's documented flag (its own MemoryUtil calls sun.misc.Unsafe) nothing may
# reach stderr; without it only the JDK's warning about that class of arrow-memory-core may.
cp -r .ci/consumer-arrow "$work/arrow-project"
MAVEN_OPTS="-Dsun.misc.unsafe.memory.access=allow ${MAVEN_OPTS:-}" ./mvnw -B -q -f "$work/arrow-project/pom.xml" \
  -Dmaven.repo.local="$work/repo" -Dmaven.repo.local.tail="$work/tail" \
  -Dsluice.repository="file://$repo" \
  package dependency:build-classpath -Dmdep.outputFile="$work/arrow-classpath.txt"
acp="$(cat "$work/arrow-classpath.txt")"
for a in sluice-arrow arrow-vector arrow-memory-core; do
  grep -q "$a" <<<"$acp" || { echo "ci: consumer-arrow: $a is not on the class path: $acp" >&2; exit 1; }
done
if grep -qE 'arrow-memory-(unsafe|netty)' <<<"$acp"; then
  echo "ci: consumer-arrow: one of Arrow's allocation managers is on the class path: $acp" >&2; exit 1
fi
arrow_run() { # arrow_run NAME JAVA-OPTIONS...: runs ArrowMain; its output in $work/NAME.out and .err
  local name="$1"; shift
  "$JAVA_HOME/bin/java" "$@" -cp "$work/arrow-project/target/sluice-consumer-arrow-1.0.jar:$acp" \
    org.example.consumer.ArrowMain > "$work/$name.out" 2> "$work/$name.err" \
    || { echo "ci: consumer-arrow: the program failed ($*):" >&2; cat "$work/$name.out" "$work/$name.err" >&2; exit 1; }
  grep -q '^consumer-arrow: pinned and default allocators ok' "$work/$name.out" \
    || { cat "$work/$name.out" "$work/$name.err" >&2; exit 1; }
}
arrow_run arrow-flag --sun-misc-unsafe-memory-access=allow
if [ -s "$work/arrow-flag.err" ]; then
  echo "ci: consumer-arrow: with --sun-misc-unsafe-memory-access=allow the program printed on stderr:" >&2
  cat "$work/arrow-flag.err" >&2; exit 1
fi
arrow_run arrow-plain
others="$(grep 'sun.misc.Unsafe::.* has been called by ' "$work/arrow-plain.err" | grep -v 'by org.apache.arrow.memory.util.MemoryUtil ' || true)"
if [ -n "$others" ]; then
  echo "ci: consumer-arrow: sun.misc.Unsafe called by other than arrow-memory-core's MemoryUtil:" >&2
  cat "$work/arrow-plain.err" >&2; exit 1
fi
echo "ci: consumer-arrow: sluice-arrow with arrow-vector and arrow-memory-core only; $(cat "$work/arrow-flag.out")"

# block FILE TAG: the fenced code block that follows the line "<!-- ci: TAG" (TAG may include a path); fails if none.
block() {
  awk -v want="$2" '
    index($0, "<!-- ci: ") == 1 { t = substr($0, 10); sub(/ *(-->.*|\(.*)$/, "", t); armed = (t == want); next }
    armed && !inside && /^```/ { inside = 1; next }
    inside && /^```/ { inside = 0; armed = 0; found = 1; next }
    inside { print }
    END { if (!found) exit 1 }' "$1" \
    || { echo "ci: consumer: $1 has no block marked '<!-- ci: $2'" >&2; return 1; }
}
# files FILE TAG DIR: every block of FILE marked "<!-- ci: TAG PATH", written to DIR/PATH.
files() {
  local path n=0
  while read -r path; do
    mkdir -p "$3/$(dirname "$path")"
    block "$1" "$2 $path" > "$3/$path"
    n=$((n + 1))
  done < <(sed -n "s|^<!-- ci: $2 \([^ ]*\).*|\1|p" "$1")
  [ "$n" -gt 0 ] || { echo "ci: consumer: $1 has no file marked '<!-- ci: $2 PATH'" >&2; return 1; }
}
# The pages' `mvn` is this wrapper on a fresh local repository that reads Sluice from target/ci-repo only.
cat > "$work/settings.xml" <<EOF
<settings>
  <profiles><profile><id>sluice-ci</id><repositories><repository><id>sluice-ci</id><url>file://$repo</url>
    <snapshots><enabled>true</enabled><updatePolicy>always</updatePolicy></snapshots></repository></repositories>
  </profile></profiles>
  <activeProfiles><activeProfile>sluice-ci</activeProfile></activeProfiles>
</settings>
EOF
root="$PWD"
mvn() {
  "$root/mvnw" -B -s "$work/settings.xml" -Dmaven.repo.local="$work/repo" -Dmaven.repo.local.tail="$work/tail" "$@"
}
# A `java` first on the PATH that is not the JDK 25, as on a machine whose default Java is older: exec:exec must
# not run it.
mkdir -p "$work/old-java"
cat > "$work/old-java/java" <<'EOF'
#!/bin/sh
echo "the java on the PATH ran, not the JDK 25 that Maven runs on: $*" >&2
exit 3
EOF
chmod +x "$work/old-java/java"
run_page() { # run_page FILE RUN-TAG DIR: runs the page's command in DIR; its output in DIR.out and DIR.err
  local cmd
  cmd="$(block "$1" "$2")"
  cmd="${cmd//\/path\/to\/jdk-25/$JAVA_HOME}"
  (cd "$3" && PATH="$work/old-java:$PATH" && eval "$cmd") > "$3.out" 2> "$3.err" \
    || { echo "ci: consumer: $1: '$cmd' failed:" >&2; cat "$3.out" "$3.err" >&2; return 1; }
  grep -q '^y\[0\] = 7.0 on ' "$3.out" \
    || { echo "ci: consumer: $1: '$cmd' did not print 'y[0] = 7.0 on ...':" >&2; cat "$3.out" "$3.err" >&2; return 1; }
  if [ -s "$3.err" ]; then
    echo "ci: consumer: $1: '$cmd' printed on stderr:" >&2; cat "$3.err" >&2; return 1
  fi
  echo "ci: consumer: $1 as written: $(sed -n '/^y\[0\]/p' "$3.out")"
}

# The README: its dependency block and build block in a POM of their own, its program, its run command.
mkdir -p "$work/readme"
{
  cat <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
<modelVersion>4.0.0</modelVersion>
<groupId>com.example</groupId>
<artifactId>readme</artifactId>
<version>1.0</version>
EOF
  block README.md readme-dependencies
  block README.md readme-build
  echo '</project>'
} > "$work/readme/pom.xml"
files README.md readme-program "$work/readme"
# The README says that MAVEN_OPTS silences JDK 25's warning about Maven's own sun.misc.Unsafe calls.
MAVEN_OPTS="--sun-misc-unsafe-memory-access=allow" run_page README.md readme-run "$work/readme"

# docs/first-program.md: every file it shows (its .mvn/jvm.config silences that warning), and its run command, which
# runs its test too.
mkdir -p "$work/first-program"
files docs/first-program.md first-program "$work/first-program"
run_page docs/first-program.md first-program-run "$work/first-program"
[ -f "$work/first-program/target/surefire-reports/com.example.FirstProgramTest.txt" ] \
  || { echo "ci: consumer: docs/first-program.md: its test did not run" >&2; exit 1; }
