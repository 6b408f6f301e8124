#!/bin/sh
# .gpu/jre/bin/java, as scripts/gpu-pack.sh packs it: the Java runtime travels compressed (.gpu/jre.tar.gz, under
# half its size unpacked), and the first call unpacks it into a folder outside .gpu/, so that a copy of .gpu/ never
# carries it twice; every call then runs that runtime's java with the arguments given.
set -eu
gpu="$(cd "$(dirname "$0")/../.." && pwd)"
runtime="${TMPDIR:-/tmp}/sluice-jre-$(cat "$gpu/jre.id")"
if [ ! -x "$runtime/bin/java" ]; then
  tmp="$runtime.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  if ! tar -xzf "$gpu/jre.tar.gz" -C "$tmp"; then
    rm -rf "$tmp"
    echo "java: could not unpack $gpu/jre.tar.gz into $tmp" >&2
    exit 1
  fi
  # Calls that start at once each unpack a copy: the first to rename its copy wins, the others drop theirs.
  mv -T "$tmp" "$runtime" 2>/dev/null || rm -rf "$tmp"
fi
exec "$runtime/bin/java" "$@"
