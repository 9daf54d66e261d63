#!/bin/bash
# Builds the independent harness for bench/ggml's cases, here (no GPU needed):
# the replay (make_repo.sh), each case's base and head sources compiled to
# sm_90 cubins with nvcc as ggml compiles them, kernels.tsv naming each
# kernel's symbol in them, and ggml_harness itself (CUDA driver API).
#
#   bench/ggml/harness/build.sh OUT [REPLAY]
# OUT/ggml_harness OUT/kernels.tsv OUT/cubins/*.cubin; REPLAY: an existing
# replay to use instead of building one. NVCC (default
# /usr/local/cuda/bin/nvcc) and CXX (default g++).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:?usage: build.sh OUT [REPLAY]}
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
CUDA_HOME=${CUDA_HOME:-$(dirname "$(dirname "$NVCC")")}
mkdir -p "$OUT/cubins"
OUT=$(cd "$OUT" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
REPLAY=${2:-}
if [ -z "$REPLAY" ]; then
  REPLAY="$work/replay"
  bash "$HERE/../make_repo.sh" "$REPLAY" > /dev/null
fi

# (case, kernel, side, era, tag, source, template-id) for every kernel the harness times.
python3 "$HERE/sides.py" "$HERE/../cases.json" "$HERE/../upstream.json" > "$work/sides.tsv"

: > "$OUT/kernels.tsv.new"
while IFS=$'\t' read -r case kernel side era tag source templ; do
  cubin="cubins/${tag#up/}-$(basename "$source" .cu).cubin"
  if [ ! -f "$OUT/$cubin" ]; then
    tree="$work/trees/${tag#up/}"
    if [ ! -d "$tree" ]; then
      mkdir -p "$tree" && git -C "$REPLAY" archive "$tag" | tar x -C "$tree"
    fi
    # ggml's flags (src/ggml-cuda/CMakeLists.txt) and a release build's NDEBUG.
    "$NVCC" -cubin -arch=sm_90 -O3 --use_fast_math -extended-lambda -DNDEBUG \
      -I"$tree/include" -I"$tree/src" -I"$tree/src/ggml-cuda" -o "$OUT/$cubin" "$tree/$source"
  fi
  # The kernel's mangled name: the function symbol whose demangled name is the template-id
  # (a template's starts with its return type, a plain function's with its name).
  readelf -sW "$OUT/$cubin" | awk '/ FUNC / {print $NF}' > "$work/symbols"
  symbol=$(c++filt < "$work/symbols" | paste "$work/symbols" - |
           awk -F'\t' -v want="$templ(" 'index($2, "void " want) == 1 || index($2, want) == 1 {print $1}' | head -1)
  [ -n "$symbol" ] || { echo "build.sh: no kernel $templ in $cubin" >&2; exit 1; }
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$case" "$kernel" "$side" "$era" "$cubin" "$symbol" >> "$OUT/kernels.tsv.new"
done < "$work/sides.tsv"
mv "$OUT/kernels.tsv.new" "$OUT/kernels.tsv"

${CXX:-g++} -std=c++17 -O2 -Wall -Wextra -I"$CUDA_HOME/include" -I"$HERE/../../harness_clock" \
  -o "$OUT/ggml_harness" "$HERE/main.cpp" "$HERE/contracts.cpp" "$HERE/cubin_params.cpp" \
  "$HERE/../../harness_clock/kernel_clock.cpp" -ldl -lpthread
echo "build.sh: $(wc -l < "$OUT/kernels.tsv") kernel sides, $(ls "$OUT/cubins" | wc -l) cubins in $OUT"
