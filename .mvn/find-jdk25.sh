# Sourced by ./mvnw and the project's scripts: makes JAVA_HOME point at a JDK 25 or newer.
# Order: JAVA_HOME if it is 25+, the `java` on the PATH if it is 25+, then /usr/lib/jvm/*,
# /usr/java/*, /opt/java/*, /opt/jdk*, ~/.sdkman/candidates/java/*. Stops with a message
# naming what it needs and what it found.
sluice_java_feature() {
  # prints the feature release (17, 21, 25...) of the java binary given, or nothing
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' | sed -n 1p
}
sluice_find_jdk25() {
  sluice_found=""
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
    v=$(sluice_java_feature "$JAVA_HOME/bin/java")
    if [ "${v:-0}" -ge 25 ] 2>/dev/null; then return 0; fi
    sluice_found="$sluice_found JAVA_HOME=$JAVA_HOME (java $v);"
  fi
  if command -v java >/dev/null 2>&1; then
    v=$(sluice_java_feature java)
    if [ "${v:-0}" -ge 25 ] 2>/dev/null; then
      JAVA_HOME=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")"); export JAVA_HOME; return 0
    fi
    sluice_found="$sluice_found java on PATH (java $v);"
  fi
  for d in /usr/lib/jvm/* /usr/java/* /opt/java/* /opt/jdk* "$HOME"/.sdkman/candidates/java/*; do
    [ -x "$d/bin/java" ] && [ -x "$d/bin/javac" ] || continue
    v=$(sluice_java_feature "$d/bin/java")
    if [ "${v:-0}" -ge 25 ] 2>/dev/null; then JAVA_HOME="$d"; export JAVA_HOME; return 0; fi
    sluice_found="$sluice_found $d (java $v);"
  done
  echo "Sluice needs a JDK 25 or newer (java and javac). Set JAVA_HOME to one." >&2
  echo "Found instead:${sluice_found:- no JDK at all}" >&2
  return 1
}
sluice_find_jdk25 || exit 1
