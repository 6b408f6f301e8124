#!/usr/bin/env bash
# A green build looks green: exits 1 when the output of a passing `./mvnw -B verify` (the log named by the first argument)
# holds a warning that is not on the short list below, and prints each such line.
# Warnings the tests provoke on purpose are asserted and kept off the console by the tests themselves (ExpectWarning in
# the api test-jar); anything else that a test, javac, a plugin or the JVM prints as a warning is news.
set -euo pipefail
log="${1:?usage: quiet-check.sh <log of ./mvnw -B verify>}"

# Expected:
# - Surefire reports a test class with skipped tests as a warning; without a GPU the CUDA and HIP tests skip, each with
#   its reason, and some conformance tests skip where a backend lacks a capability.
allowed='^\[WARNING\] Tests run: [0-9]+, Failures: 0, Errors: 0, Skipped: [1-9][0-9]*(, Time elapsed: .*)?$'

unexpected="$(grep -E 'WARNING' "$log" | grep -Ev "$allowed" || true)"
if [ -n "$unexpected" ]; then
  echo "quiet-check: the build printed warnings it should not (assert a provoked one with @ExpectWarning, fix the rest):" >&2
  printf '%s\n' "$unexpected" >&2
  exit 1
fi
echo "quiet-check: no unexpected warning"
