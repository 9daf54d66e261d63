#!/bin/bash
# On the GPU machine: builds the candle replay repository, gates every case of
# cases.json kernel by kernel with kgate (JSON report, log and exit code per
# case and kernel in OUT/candle/), runs the independent harness on the same
# cases (OUT/candle/harness.tsv) and writes OUT/candle_verdicts.md
# (verdict_table.py) and OUT/candle_reports.tar.gz (OUT/candle/, to carry back).
#
#   BUNDLE_DIR/src/bench/candle/run_gpu.sh BUNDLE_DIR OUT
# BUNDLE_DIR is bench/gpu/bundle.sh's: bin/kgate, lib/, candle/ (the harness
# and its cubins, build_harness.sh) and src/bench/candle. Environment: BUDGET
# (kgate's timing seconds per kernel-shape, default 0.25), SECONDS_PER_SHAPE (the
# harness's, default 0.15), CASES (default: all, by id), SETTLE_US (the harness's
# --settle-us: the pause between its L2 flush and each timed launch), PLACEMENTS (below),
# GATES (0: the harness alone, no kgate gate), SPACER (its
# --spacer: 1 launches an empty kernel between the flush and each timed launch), HARNESS_TIMEOUT
# (seconds per case, default 300).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
BUNDLE=$(cd "${1:?usage: run_gpu.sh BUNDLE_DIR OUT}" && pwd)
OUT=${2:?usage: run_gpu.sh BUNDLE_DIR OUT}
mkdir -p "$OUT/candle"
TOP=$(cd "$OUT" && pwd)
OUT="$TOP/candle"
KGATE="$BUNDLE/bin/kgate"
# kgate needs the toolkit's libnvrtc (CUDA 13) beside the bundle's libraries.
export LD_LIBRARY_PATH="$BUNDLE/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
BUDGET=${BUDGET:-0.25}
start=$(date +%s)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A cache of this run's own: compiled once here (warmed below), nothing stale from elsewhere.
export KGATE_CACHE_DIR="$work/cache"
bash "$HERE/make_repo.sh" "$work/candle" > "$OUT/make_repo.log" 2>&1 ||
  { echo "run_gpu: make_repo.sh failed (candle/make_repo.log)" >&2; exit 3; }
cases=${CASES:-$(python3 -c 'import json,sys; print(" ".join(c["id"] for c in json.load(open(sys.argv[1]))["cases"]))' "$HERE/cases.json")}
gated=$cases
[ "${GATES:-1}" = 0 ] && gated=""  # the harness only: nothing to compile or gate
# Warm kgate's compile cache on all cores: kgate check compiles every kernel and
# reference of a revision, and the gates then find each side compiled.
tags=$(python3 - "$HERE/cases.json" $gated <<'PY'
import json, sys
want = set(sys.argv[2:])
print(" ".join(sorted({t for c in json.load(open(sys.argv[1]))["cases"] if c["id"] in want
                       for t in (c["base"], c["head"])})))
PY
)
for tag in $tags; do
  mkdir -p "$work/tree/$tag" && git -C "$work/candle" archive "up/$tag" | tar -x -C "$work/tree/$tag"
done
[ -z "$tags" ] || printf '%s\n' $tags | xargs -P "$(nproc)" -I{} sh -c \
  '"$0" check "$1/tree/{}" --arch sm_90 > "$2/check-{}.log" 2>&1' "$KGATE" "$work" "$OUT"
echo "run_gpu: compile cache warm after $(( $(date +%s) - start )) s" >&2
for id in $gated; do
  python3 - "$HERE/cases.json" "$id" <<'PY' > "$work/kernels"
import json, sys
c = next(c for c in json.load(open(sys.argv[1]))["cases"] if c["id"] == sys.argv[2])
for k in c["kernels"]:
    print(c["base"], c["head"], k["kernel"])
PY
  while read -r base head kernel; do
    name="$id-$kernel"
    rm -f "$OUT/$name.json"
    # In the background, so that a time limit's TERM stops the gate too (it holds the GPU lock).
    "$KGATE" gate --repo "$work/candle" --base "up/$base" --head "up/$head" --kernel "$kernel" \
      --backend cuda --seed 1 --budget "$BUDGET" --json "$OUT/$name.json" > "$OUT/$name.log" 2>&1 &
    pid=$!
    trap 'kill $pid 2>/dev/null; exit 143' TERM INT
    wait $pid
    echo $? > "$OUT/$name.exit"
    trap - TERM INT
    echo "run_gpu: $name: exit $(cat "$OUT/$name.exit") ($(( $(date +%s) - start )) s)" >&2
  done < "$work/kernels"
done
# The independent harness: its own launches, cubins built by build_harness.sh.
cubins="$BUNDLE/candle"
if [ -f "$cubins/cubins.tar.xz" ] && [ ! -d "$cubins/cubins" ]; then
  mkdir -p "$work/harness" && tar -xJf "$cubins/cubins.tar.xz" -C "$work/harness" && cubins="$work/harness"
fi
# Each case's rows land in OUT as they are measured, so a run cut short keeps what it timed.
# PLACEMENTS (KiB, default "0"): the harness runs once per value with that much allocated
# before each shape's buffers (--pad-kb), so that they lie elsewhere; the first run is
# OUT/harness-<case>.tsv, the others OUT/placements/p<KiB>/harness-<case>.tsv.
runs=0
for pad in ${PLACEMENTS:-0}; do
  dir="$OUT"
  [ "$runs" = 0 ] || dir="$OUT/placements/p$pad"
  runs=$((runs + 1))
  mkdir -p "$dir"
  for id in $cases; do
    timeout "${HARNESS_TIMEOUT:-300}" "$BUNDLE/candle/candle_ab" "$HERE/harness/spec.txt" \
      "$cubins/cubins" "$dir/harness-$id.tsv" --case "$id" --seconds "${SECONDS_PER_SHAPE:-0.15}" \
      --pad-kb "$pad" ${SETTLE_US:+--settle-us "$SETTLE_US"} ${SPACER:+--spacer "$SPACER"} \
      > /dev/null 2> "$dir/harness-$id.log"
    echo "run_gpu: harness $id (padding $pad KiB): exit $? ($(( $(date +%s) - start )) s)" >&2
  done
done
first=$(for f in "$OUT"/harness-*.tsv; do [ -s "$f" ] && echo "$f" && break; done)
{ [ -n "$first" ] && head -1 "$first"; for f in "$OUT"/harness-*.tsv; do tail -n +2 "$f"; done; } \
  > "$OUT/harness.tsv"
python3 "$HERE/verdict_table.py" "$HERE/cases.json" "$OUT" > "$TOP/candle_verdicts.md"
tar -czf "$TOP/candle_reports.tar.gz" -C "$TOP" candle
echo "run_gpu: done in $(( $(date +%s) - start )) s: $TOP/candle_verdicts.md" >&2
head -3 "$TOP/candle_verdicts.md"
