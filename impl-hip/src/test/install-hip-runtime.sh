#!/usr/bin/env bash
# Installs AMD's HIP runtime as Debian packages it (libamdhip64-5: libamdhip64.so.5, HIP 5.2, with hiprtc
# inside), so that impl-hip's HipRealLibraryTest can load the real library and check every symbol the HIP
# backend binds. No GPU is needed. Idempotent and quiet: does nothing when the library is already present;
# prints one line when it installs. Needs root (or sudo) and Debian's package archive.
set -euo pipefail

have_lib() {
  # ldconfig's list is read whole first: piped into grep -q, which stops at the match, ldconfig could die of SIGPIPE
  # and pipefail make the test false.
  local cache
  cache="$(ldconfig -p 2>/dev/null || true)"
  grep -q 'libamdhip64\.so\.5 ' <<<"$cache" && return 0
  [ -e /usr/lib/x86_64-linux-gnu/libamdhip64.so.5 ] || [ -e /usr/lib/aarch64-linux-gnu/libamdhip64.so.5 ]
}

if have_lib; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo -n"; else
    echo "install-hip-runtime: not root and no sudo; HipRealLibraryTest will skip" >&2; exit 0
  fi
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-hip-runtime: no apt-get here; HipRealLibraryTest will skip" >&2
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get install -y -qq --no-install-recommends libamdhip64-5 >/dev/null 2>&1; then
  $SUDO apt-get update -qq >/dev/null 2>&1 || true
  $SUDO apt-get install -y -qq --no-install-recommends libamdhip64-5 >/dev/null
fi
have_lib && echo "install-hip-runtime: installed libamdhip64-5 ($(dpkg-query -W -f='${Version}' libamdhip64-5 2>/dev/null))"
