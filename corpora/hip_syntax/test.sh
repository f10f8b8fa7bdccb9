#!/bin/bash
# Interestingness test for kernel.hip (no arguments; run in the directory that holds the
# candidate kernel.hip -- usually a temporary directory, hence HIP_SHIM).
#
# Interesting iff the clang-22 HIP device-only compile for gfx950 still reports that the
# __host__ __device__ helper effective_eps() reaches the host-only report_clamped_eps() from
# device code. That diagnostic is deferred: clang only emits it when the helper is really
# emitted for the device, i.e. when a kernel still calls it.
#
# Environment:
#   HIP_SHIM   directory holding hip/hip_runtime.h (required), e.g.
#              HIP_SHIM=/work/main/interestingness/compiler/shim
#   CLANGXX    clang++ to use (default /usr/lib/llvm-22/bin/clang++)
set -u
if [ -z "${HIP_SHIM:-}" ] || [ ! -f "${HIP_SHIM}/hip/hip_runtime.h" ]; then
  echo "test.sh: HIP_SHIM must name the directory containing hip/hip_runtime.h (got '${HIP_SHIM:-<unset>}')" >&2
  exit 2
fi
CLANGXX="${CLANGXX:-/usr/lib/llvm-22/bin/clang++}"
[ -f kernel.hip ] || exit 1
out="$(LC_ALL=C timeout 30 "$CLANGXX" -x hip --offload-arch=gfx950 -O3 -std=gnu++20 -nogpuinc -nogpulib \
        -I"$HIP_SHIM" -fno-offload-lto --offload-device-only --no-gpu-bundle-output \
        -S kernel.hip -o /dev/null 2>&1)"
rc=$?
[ "$rc" -eq 124 ] && exit 1      # timed out
[ "$rc" -ge 128 ] && exit 1      # crashed / killed: a different bug
[ "$rc" -ne 0 ] || exit 1        # must still fail
printf '%s\n' "$out" | grep -qF "error: reference to __host__ function 'report_clamped_eps' in __host__ __device__ function" || exit 1
exit 0
