#!/usr/bin/env bash
# Fails where a tracked shell script does not parse (bash -n). Most of scripts/ runs only on a GPU host, which CI has
# not: a syntax error there would otherwise be found only on the next GPU run.
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -d '' -t FILES < <(git ls-files -z -- '*.sh' .ci/run mvnw sluice)
bad=0
for f in "${FILES[@]}"; do
  if ! bash -n "$f"; then
    echo "shell-check: $f does not parse" >&2
    bad=1
  fi
done
[ "$bad" -eq 0 ] || exit 1
echo "shell-check: ok (${#FILES[@]} scripts parse)"
