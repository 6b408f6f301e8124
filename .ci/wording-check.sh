#!/usr/bin/env bash
# Fails where the repository speaks of how it was made instead of about the software: tracker numbers, diaries of
# who ran what when, files that live outside the repository, the names of the infrastructure that provided GPU hosts.
# A reader of the repository cannot follow any of these. Checks every tracked text file (LICENSE excepted: the Apache License's own
# wording), or the files named on the command line:
#
#   bash .ci/wording-check.sh [FILE...]
#
# Each pattern spells one letter as a character class ([i]ssue), so that this script does not match itself; before it
# scans, it checks that every pattern still catches an example of what it is for.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$#" -eq 0 ]; then
  mapfile -d '' -t FILES < <(git ls-files -z -- . ':!:LICENSE')
else
  FILES=("$@")
fi

python3 - "${FILES[@]}" <<'PY'
import re, sys

# (what it finds, pattern, an example it must catch; the examples are joined from pieces for the same reason)
RULES = [
    ("an issue number", r"(?i)\b[i]ssues?\s*(?:#\s*)?\d+|\b[i]ssue\s*#", "see " + "iss" + "ue 3"),
    ("an issue as a place", r"(?i)\b(?:CUDA|HIP)\s+(?:backend(?:'s)?\s+)?[i]ssue\b|\bbackend'?s\s+[i]ssue\b",
     "in the CUDA " + "iss" + "ue"),
    ("a diary entry", r"(?i)(?<!gpu-)\b[s]essions?\b(?!\.txt)", "the first " + "ses" + "sion"),
    ("a diary entry", r"(?i)\b[w]ork\s+[p]eriods?\b", "a wor" + "k period"),
    ("a file outside the repository", r"\b(?:[M]EASURED|[D]ESIGN)\.md\b|\b[T]EAM-NOTES\b|\b[s]hared/[A-Z]{3}",
     "see " + "MEAS" + "URED.md"),
    ("the infrastructure that provided GPU hosts", r"(?i)\b[l]ease\b|\b[l]ent\b|\b[c]arry\s*:?\s*\[|\b[c]arry\s+\.gpu\b|\b[d]evice\s+tool\b"
     r"|\b[r]un\s+tool\b|the\s+`[r]un`\s+tool|/\.[d]evice/|\b[n]vidia-h\d+(?:-x\d+)?\b", "with ca" + "rry [\".gpu\"]"),
]
compiled = [(what, re.compile(p), example) for what, p, example in RULES]

broken = [what for what, rx, example in compiled if not rx.search(example)]
if broken:
    print("wording-check: a pattern no longer catches its example: " + ", ".join(broken), file=sys.stderr)
    sys.exit(2)

hits = 0
for path in sys.argv[1:]:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except (IsADirectoryError, FileNotFoundError):
        continue
    if b"\0" in data[:8192]:
        continue  # binary
    for n, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
        for what, rx, _ in compiled:
            m = rx.search(line)
            if m:
                hits += 1
                print(f"{path}:{n}: {what} ({m.group(0)!r}): {line.strip()[:160]}")
if hits:
    print(f"wording-check: {hits} line(s) speak of how the repository was made; say what the software does instead",
          file=sys.stderr)
    sys.exit(1)
print(f"wording-check: ok ({len(sys.argv) - 1} files)")
PY
