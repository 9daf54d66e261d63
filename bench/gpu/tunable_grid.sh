#!/bin/bash
# `kgate run` of one kernel with several tunable settings, shape by shape,
# each setting on its own copy of the example (the values made the manifest's
# defaults by bench/set_tunable_defaults.py):
#   bench/gpu/tunable_grid.sh KGATE EXAMPLE KERNEL "SHAPE ..." "NAME=V ..." ["NAME=V ..." ...]
# One line per setting and shape: the settings, then kgate run's row (median
# time, errors, check). The gemv occupancy table in docs/BENCHMARKS.md came
# from it; run several settings in one call so their ratios share a machine state.
set -u
KGATE=$(readlink -f "$1") EXAMPLE=$2 KERNEL=$3 SHAPES=$4
shift 4
HERE=$(cd "$(dirname "$0")/.." && pwd)
for settings in "$@"; do
  copy=$(mktemp -d) && cp -r "$EXAMPLE/." "$copy"
  # shellcheck disable=SC2086  # settings are NAME=V words
  python3 "$HERE/set_tunable_defaults.py" "$copy/kgate.json" "$KERNEL" $settings
  for shape in $SHAPES; do
    row=$("$KGATE" run "$copy" --kernel "$KERNEL" --shape "$shape" --backend cuda --seed 1 2>&1 |
      grep -E "^$KERNEL |rror" | head -2 | tr -s ' ')
    echo "$settings : $row"
  done
  rm -rf "$copy"
done
