#!/bin/bash
# Builds bench/candle's independent timing harness where the CUDA toolkit is:
# OUT/candle_ab (host code on the driver API, libcuda.so.1 opened at run time,
# so it links without the driver) and OUT/cubins/<tag>/<file>.cubin, nvcc -cubin
# -arch=sm_90 of candle-kernels/src/<file>.cu at every tag harness/spec.txt
# names, from the replay repository (make_repo.sh). A file that does not
# compile at a tag gets no cubin (its log is OUT/cubins/<tag>/<file>.log):
# the harness reports that side as not compiling.
#
#   bench/candle/build_harness.sh OUT [REPLAY_DIR]   (default: a fresh make_repo.sh)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:?usage: build_harness.sh OUT [REPLAY_DIR]}
CUDA=${CUDA_HOME:-/usr/local/cuda}
NVCC="$CUDA/bin/nvcc"
mkdir -p "$OUT/cubins"
OUT=$(cd "$OUT" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
REPO=${2:-}
if [ -z "$REPO" ]; then
  REPO="$tmp/replay"
  bash "$HERE/make_repo.sh" "$REPO" > /dev/null
fi
g++ -std=c++17 -O2 -Wall -Wextra -I"$CUDA/include" -I"$HERE/../harness_clock" "$HERE"/harness/*.cpp \
  "$HERE/../harness_clock/kernel_clock.cpp" -ldl -lpthread -o "$OUT/candle_ab"
# candle-kernels/build.rs's nvcc flags (bindgen_cuda / cudaforge) for sm_90.
awk '$1 == "base" || $1 == "head" { if ($3 != "-") print $2, $3 }' "$HERE/harness/spec.txt" |
  sort -u > "$tmp/pairs"
while read -r tag file; do
  mkdir -p "$tmp/src/$tag" "$OUT/cubins/$tag"
  [ -d "$tmp/src/$tag/candle-kernels" ] ||
    git -C "$REPO" archive "up/$tag" candle-kernels | tar -x -C "$tmp/src/$tag"
  echo "$tag $file"
done < "$tmp/pairs" |
  TMPD="$tmp" OUTD="$OUT" NVCC="$NVCC" xargs -P "${JOBS:-2}" -n 2 sh -c '
    src="$TMPD/src/$1/candle-kernels/src/$2.cu" dest="$OUTD/cubins/$1/$2"
    if "$NVCC" -cubin -arch=sm_90 -O3 -std=c++17 --expt-relaxed-constexpr "$src" -o "$dest.cubin" \
         > "$dest.log" 2>&1; then
      rm -f "$dest.log"
    else
      rm -f "$dest.cubin"
      echo "build_harness: $2.cu does not compile at $1 (cubins/$1/$2.log)" >&2
    fi' _
du -sh "$OUT" | sed 's/^/build_harness: /'
