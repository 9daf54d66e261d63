#!/usr/bin/env bash
# Builds the example workload into workload/build/llama from the kernels in
# csrc/ (run from anywhere). Needs the CUDA toolkit: nvcc and libcublas.
# WORKLOAD_ARCH picks the GPU architecture (default sm_90, the H100/H200).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
nvcc=$(command -v nvcc || echo "$cuda/bin/nvcc")
arch=${WORKLOAD_ARCH:-sm_90}
out="$here/build"
mkdir -p "$out"
objs=()
for src in "$here"/kernel_*.cu "$here"/llama.cu; do
  obj="$out/$(basename "${src%.cu}").o"
  "$nvcc" -O3 -std=c++17 -arch="$arch" -lineinfo -I"$here" -c "$src" -o "$obj" &
  objs+=("$obj")
done
wait_all() { local rc=0; for job in $(jobs -p); do wait "$job" || rc=1; done; return $rc; }
wait_all || { echo "build.sh: compiling the workload failed" >&2; exit 1; }
# libcublas is the toolkit's: found at run time through the rpath below.
libdir=$(dirname "$(readlink -f "$nvcc")")/../lib64
"$nvcc" -arch="$arch" "${objs[@]}" -o "$out/llama" -lcublas -Xlinker -rpath="$libdir"
echo "built $out/llama"
