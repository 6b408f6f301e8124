#!/usr/bin/env bash
# Builds the HIP-over-CUDA test library (hip_over_cuda.c) for check 2: the HIP backend run end to end on an
# NVIDIA GPU. Compiled as C against AMD's HIP 5.2 prototypes in ./include (-D__HIP_PLATFORM_AMD__), so any
# exported function whose signature differs from the real HIP API fails the build; linked against the CUDA
# driver (libcuda.so.1); NVRTC is dlopen'ed at run time.
#
#   bash impl-hip/src/test/native/build-hip-over-cuda.sh [OUT_DIR]     (default: /tmp/sluice-hip)
#
# Prints the library's path as the last line of stdout; diagnostics go to stderr. Environment: CUDA_HOME
# (default /usr/local/cuda), CC (default gcc).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-/tmp/sluice-hip}"
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
CC="${CC:-$(command -v gcc || command -v cc)}"
mkdir -p "$OUT"
LIB="$OUT/libhip_over_cuda.so"

[ -f "$CUDA_HOME/include/cuda.h" ] || { echo "build-hip-over-cuda: no $CUDA_HOME/include/cuda.h" >&2; exit 1; }

ok=0
# the driver's own folders first: $CUDA_HOME/lib64 may hold only a stub of libcuda
for dir in /usr/local/nvidia/lib64 /usr/lib/x86_64-linux-gnu /usr/lib64 "$CUDA_HOME/lib64" "$CUDA_HOME/lib64/stubs"; do
  for lib in -lcuda -l:libcuda.so.1; do
    [ -d "$dir" ] || continue
    if "$CC" -std=gnu11 -O2 -fPIC -shared -Wall -Wextra -Werror -D__HIP_PLATFORM_AMD__ \
         -I"$HERE/include" -I"$CUDA_HOME/include" "$HERE/hip_over_cuda.c" -o "$LIB" \
         -L"$dir" $lib -Wl,-rpath,"$dir" -Wl,--no-undefined -ldl -lpthread 2>"$OUT/build.log"; then
      echo "build-hip-over-cuda: built $LIB with -L$dir $lib" >&2
      ok=1
      break 2
    fi
  done
done
if [ "$ok" != 1 ]; then
  cat "$OUT/build.log" >&2
  echo "build-hip-over-cuda: could not build (compiler errors above)" >&2
  exit 1
fi
n="$(nm -D --defined-only "$LIB" | awk '$2 == "T" && $3 ~ /^hip/' | wc -l)"
echo "build-hip-over-cuda: $n hip*/hiprtc* functions exported; it loads $(ldd "$LIB" 2>/dev/null | grep -o 'libcuda[^ ]* => [^ ]*' | sed -n 1p)" >&2
echo "$LIB"
