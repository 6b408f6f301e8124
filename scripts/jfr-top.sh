#!/usr/bin/env bash
# Top frames of a Flight Recorder file, by thread: which methods the samples landed in (self), and which
# methods they passed through (total), for reading a profile taken on the GPU machine (gpu-run.sh percall).
#   bash scripts/jfr-top.sh FILE.jfr [EVENT] [N]     EVENT: jdk.ExecutionSample (default), jdk.CPUTimeSample,
#                                                    jdk.NativeMethodSample; N rows (default 25)
set -euo pipefail
JDK="${SLUICE_JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}"
FILE="$1"; EVENT="${2:-jdk.ExecutionSample}"; N="${3:-25}"
"$JDK/bin/jfr" print --json --events "$EVENT" --stack-depth 64 "$FILE" | python3 -c '
import json, sys, collections
n = int(sys.argv[1])
data = json.load(sys.stdin)
events = data["recording"]["events"]
by_thread = collections.defaultdict(lambda: (collections.Counter(), collections.Counter(), [0]))
for e in events:
    v = e["values"]
    thread = (v.get("sampledThread") or v.get("eventThread") or {}).get("javaName") or "?"
    frames = (v.get("stackTrace") or {}).get("frames") or []
    names = [f["method"]["type"]["name"].split(".")[-1] + "." + f["method"]["name"] for f in frames]
    self_c, total_c, count = by_thread[thread]
    count[0] += 1
    if names:
        self_c[names[0]] += 1
    for name in set(names):
        total_c[name] += 1
for thread, (self_c, total_c, count) in sorted(by_thread.items(), key=lambda t: -t[1][2][0]):
    print(f"== {thread}: {count[0]} samples")
    print("   self                                                      total")
    s = self_c.most_common(n); t = total_c.most_common(n)
    for i in range(max(len(s), len(t))):
        a = f"{s[i][1]*100/count[0]:5.1f}% {s[i][0]}" if i < len(s) else ""
        b = f"{t[i][1]*100/count[0]:5.1f}% {t[i][0]}" if i < len(t) else ""
        print(f"   {a[:56]:56}  {b}")
' "$N"
