#!/bin/bash
# The benchmark-to-deployment gap: the example workload built from the first
# versions of the kernels and from the tunables an episode chose, run
# interleaved, per-phase latency and outputs compared.
#   bench/gpu/deployment_gap.sh EXAMPLE OUT "rmsnorm:BLOCK=256,VEC=8 gemv:VEC=8 ..."
# Each kernel's settings become #defines in front of its csrc/<kernel>.cu in a
# copy, exactly as in-model validation writes a tuned candidate.
set -euo pipefail
EXAMPLE=$1 OUT=$2 SETTINGS=$3 RUNS=${RUNS:-5}
work=$(mktemp -d)
cp -r "$EXAMPLE" "$work/base" && cp -r "$EXAMPLE" "$work/tuned"
rm -rf "$work"/*/workload/build
for spec in $SETTINGS; do
  k=${spec%%:*} defs=${spec#*:}
  f="$work/tuned/csrc/$k.cu"
  { for d in ${defs//,/ }; do echo "#define ${d%%=*} ${d#*=}"; done; cat "$f"; } > "$f.new" && mv "$f.new" "$f"
done
for v in base tuned; do bash "$work/$v/workload/build.sh" > "$OUT/gap-build-$v.log" 2>&1; done
for i in $(seq 1 "$RUNS"); do
  for v in base tuned; do
    "$work/$v/workload/build/llama" --seed 7 --prompt 256 --new-tokens 16 --repeat 3 \
      --out "$OUT/gap-$v-$i.json" > /dev/null
  done
done
python3 - "$OUT" "$RUNS" <<'PY'
import json, statistics, sys
out, runs = sys.argv[1], int(sys.argv[2])
load = lambda v, i: json.load(open(f"{out}/gap-{v}-{i}.json"))
# Each run repeats the generation; its latency per phase is the median of its repeats.
lat = lambda v, i, p: statistics.median(load(v, i)["latency_ms"][p])
same = all(load("base", i)["tokens"] == load("tuned", i)["tokens"] for i in range(1, runs + 1))
print(f"tokens equal in every run: {same}")
print("| phase | first versions ms (median of %d) | tuned ms | change |" % runs)
print("|---|---:|---:|---:|")
for phase in load("base", 1)["latency_ms"]:
    b = statistics.median(lat("base", i, phase) for i in range(1, runs + 1))
    t = statistics.median(lat("tuned", i, phase) for i in range(1, runs + 1))
    print(f"| {phase} | {b:.3f} | {t:.3f} | {100 * (t / b - 1):+.1f}% ({b / t:.2f}x) |")
PY
rm -rf "$work"
