#!/usr/bin/env bash
# The documentation a user reads stays readable and connected: every relative Markdown link of the repository's .md
# files resolves (the file, and the heading its #anchor names, as GitHub makes anchors), and the user docs (README,
# first program, guide, reactive, flink, arrow, observability, hip) stay within an hour's reading, 15,000 words
# (wc -w). Measurement history belongs in docs/benchmarks.md and docs/gpu-runs.md, contributors' matters in
# CONTRIBUTING.md and docs/architecture.md, which the budget does not count.
set -euo pipefail
cd "$(dirname "$0")/.."

budget=15000
user_docs=(README.md docs/first-program.md docs/guide.md docs/reactive.md docs/flink.md docs/arrow.md
  docs/observability.md docs/hip.md)
words=$(cat "${user_docs[@]}" | wc -w)
status=0
if [ "$words" -gt "$budget" ]; then
  echo "docs-check: the user docs have $words words, over the budget of $budget:" >&2
  wc -w "${user_docs[@]}" >&2
  status=1
fi

git ls-files '*.md' | python3 -c '
import os, re, sys

def anchors(path, cache={}):
    if path not in cache:
        seen, fence = {}, False
        for line in open(path, encoding="utf-8"):
            if line.startswith("```"):
                fence = not fence
            if fence or not re.match(r"^#{1,6} ", line):
                continue
            text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", line.lstrip("#").strip()).lower()
            slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            seen.setdefault(slug if n == 0 else f"{slug}-{n}", 1)
        cache[path] = set(seen)
    return cache[path]

bad = 0
for md in sys.stdin.read().split():
    fence = False
    for number, line in enumerate(open(md, encoding="utf-8"), 1):
        if line.startswith("```"):
            fence = not fence
        if fence:
            continue
        for target in re.findall(r"\]\(([^)\s]+)\)", re.sub(r"`[^`]*`", "", line)):
            if re.match(r"^[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            file = os.path.normpath(os.path.join(os.path.dirname(md), path)) if path else md
            if not os.path.exists(file):
                print(f"docs-check: {md}:{number}: {target}: no such file", file=sys.stderr)
                bad += 1
            elif anchor and file.endswith(".md") and anchor.lower() not in anchors(file):
                print(f"docs-check: {md}:{number}: {target}: no such heading in {file}", file=sys.stderr)
                bad += 1
sys.exit(1 if bad else 0)
' || status=1

[ "$status" -eq 0 ] && echo "docs-check: ok (user docs $words words of $budget; every relative link resolves)"
exit $status
