#!/usr/bin/env bash
# A green build looks green: exits 1 when the output of a passing `./mvnw -B verify` (the log named by the first argument)
# holds a line it should not, and prints each such line:
# - a warning (`WARNING`: Maven's, javac's, a plugin's, a java.util.logging record's) that is not on the short list below;
# - an error record (`SEVERE`, java.util.logging's level for System.Logger's ERROR);
# - a leak report (`LEAK`, Sluice's leak detector: a test dropped a buffer, host buffer, event or function unclosed);
# - a line per skipped test (`SKIPPED`): a suite skips where its device is absent, and says why once, not per test.
# Warnings and errors the tests provoke on purpose are asserted and kept off the console by the tests themselves
# (ExpectWarning in the api test-jar); anything else is news.
set -euo pipefail
log="${1:?usage: quiet-check.sh <log of ./mvnw -B verify>}"

# Expected:
# - Surefire reports a test class with skipped tests as a warning; without a GPU the CUDA and HIP tests skip, each with
#   its reason in the Surefire report, and some conformance tests skip where a backend lacks a capability.
allowed='^\[WARNING\] Tests run: [0-9]+, Failures: 0, Errors: 0, Skipped: [1-9][0-9]*(, Time elapsed: .*)?$'

unexpected="$(grep -E 'WARNING|SEVERE|LEAK|(^|[^A-Za-z])SKIPPED([^A-Za-z]|$)' "$log" | grep -Ev "$allowed" || true)"
if [ -n "$unexpected" ]; then
  echo "quiet-check: the build printed lines it should not (assert a provoked warning with @ExpectWarning, close what a" \
    "test opens, print a skip's reason once; fix the rest):" >&2
  printf '%s\n' "$unexpected" >&2
  exit 1
fi
echo "quiet-check: no unexpected warning, error record, leak report or per-test skip line"
