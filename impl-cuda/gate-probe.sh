#!/usr/bin/env bash
# Runs src/test/native/gate_probe.c on the GPU machine over a matrix of calls, numbers of gated streams, module
# loading modes and hardware connection counts; prints one line per case (and writes ${OUT:-/tmp/out}/gate-probe.txt).
# Each case runs in a process of its own. Needs nvcc and gcc (the GPU machine has both).
set -uo pipefail
cd "$(dirname "$0")"
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
OUT="${OUT:-/tmp/out}"; mkdir -p "$OUT"
W="$(mktemp -d)"
printf 'extern "C" __global__ void noop() {}\n' > "$W/k.cu"
"$CUDA_HOME/bin/nvcc" -ptx -arch=compute_90 "$W/k.cu" -o "$W/k.ptx" || exit 1
libdir="$(ldconfig -p | awk '/libcuda\.so\.1 .*x86-64/ && !found {print $NF; found = 1}')"
gcc -O2 -I"$CUDA_HOME/include" src/test/native/gate_probe.c -o "$W/gate_probe" \
  -L"$(dirname "${libdir:-/usr/local/nvidia/lib64/libcuda.so.1}")" -l:libcuda.so.1 -lpthread || exit 1
{
for loading in LAZY EAGER; do
  for op in modload streamcreate streamcreateprio streamdestroy eventcreate memalloc memallocfree hostalloc \
            launchother copyother allocasyncother; do
    CUDA_MODULE_LOADING=$loading timeout 20 "$W/gate_probe" "$op" 1 "$W/k.ptx"
  done
done
for conn in "" 32; do
  for g in 0 1 4 7 8 16 31 32 64; do
    for op in streamcreate launchother; do
      if [ -n "$conn" ]; then CUDA_DEVICE_MAX_CONNECTIONS=$conn CUDA_MODULE_LOADING=EAGER timeout 20 "$W/gate_probe" "$op" "$g" "$W/k.ptx"
      else CUDA_MODULE_LOADING=EAGER timeout 20 "$W/gate_probe" "$op" "$g" "$W/k.ptx"; fi
    done
  done
done
} 2>&1 | tee "$OUT/gate-probe.txt"
