#!/bin/bash
# The benchmark-to-deployment gap from a real sweep (issue 9, "Measured"):
#   bench/gpu/sweep_gap.sh KGATE EXAMPLE OUT
# KGATE: the kgate binary (libkgate_trace.so beside it); EXAMPLE: examples/llm-ops.
#  1. copies EXAMPLE to a scratch git repository and runs `kgate extract` there
#     (the task list orders the sweep hottest first and gives each kernel's
#     share of each phase's GPU time);
#  2. runs `kgate sweep --agent tuner` on it with the episode settings of
#     episodes.sh (decode and prefill shapes, a short sampling budget per
#     shape, SWEEP_BUDGET_S per episode), in-model validation included as in
#     the real flow; accepted results become proposals and kgate/optimize/*
#     branches of the local forge;
#  3. applies every accepted proposal together to one copy (bench/sweep_gap.py apply);
#  4. builds the workload from the base and from that copy and runs them
#     interleaved RUNS times each, then writes OUT/sweep_gap.md (per-phase
#     latency before/after, speedups, tokens equal, beside each kernel's
#     isolated speedup from the sweep's episode records) and
#     OUT/sweep_episodes.md (bench/episodes_table.py on the sweep's state).
# Wall time on the H200 host (16 cores): 391 s with SWEEP_BUDGET_S=35 (the
# default), 250 s with 20 s (too short: gemv's and softmax's first gates used
# the whole budget). The sweep is capped at 6 x (budget + 50) s; extract ~20 s,
# two workload builds and 2 x RUNS runs ~40 s, the tables ~30 s.
# gemv's lm-head-b1 shape is left out of the scratch copy's manifest, as
# episodes.sh leaves it out: it draws 525M weights and computes its reference
# on the host for every gate (about a minute each).
set -u
KGATE=$(readlink -f "$1") EXAMPLE=$2 OUT=$(mkdir -p "$3" && cd "$3" && pwd)
HERE=$(cd "$(dirname "$0")/.." && pwd)
BUDGET=${SWEEP_BUDGET_S:-35} RUNS=${RUNS:-5}
# SWEEP_TOTAL_BUDGET_S: one budget for the whole sweep instead (kgate sweep
# --total-budget-s: half split evenly, half by the workload's GPU-time share).
budget_args=(--budget-s "$BUDGET")
[ -n "${SWEEP_TOTAL_BUDGET_S:-}" ] && budget_args=(--total-budget-s "$SWEEP_TOTAL_BUDGET_S") &&
  BUDGET=$(( SWEEP_TOTAL_BUDGET_S / 6 ))
REPO=${SWEEP_REPO:-/tmp/kgate-sweep-gap} STATE="$OUT/sweep-state" WORK=/tmp/kgate-sweep-gap-trees
start=$(date +%s)
elapsed() { echo "=== $1 after $(( $(date +%s) - start ))s" >&2; }

rm -rf "$REPO" "$STATE" "$WORK" && mkdir -p "$STATE"
cp -r "$EXAMPLE" "$REPO" && rm -rf "$REPO/workload/build" "$REPO/.kgate"
sed -i '/"name": "lm-head-b1"/d' "$REPO/kgate.json"
"$KGATE" validate "$REPO" > /dev/null || { echo "sweep_gap: the trimmed manifest does not load" >&2; exit 2; }
echo "workload/build/" > "$REPO/.gitignore"  # extract and in-model validation build there
(cd "$REPO" && git init -q && git checkout -q -b main && git add -A &&
  git -c user.name=kgate -c user.email=kgate@localhost commit -qm "llm-ops example") || exit 3

# 1. The task list of the deployed workload.
"$KGATE" extract --repo "$REPO" --state-dir "$STATE" --json "$OUT/sweep-tasks.json" \
  --trace "$WORK-trace.json" > "$OUT/sweep-extract.log" 2>&1 || echo "sweep_gap: extract failed (sweep in manifest order)" >&2
elapsed extract

# 2. The sweep, in the task list's order, on the decode and prefill shapes.
timeout $((6 * (BUDGET + 50))) "$KGATE" sweep --repo "$REPO" --backend cuda --agent tuner --new \
  --state-dir "$STATE" --no-baselines --seed 1 --max-iters 20 --patience 4 "${budget_args[@]}" \
  --phases decode,prefill --shape-budget-s 0.25 > "$OUT/sweep.log" 2>&1
echo "=== sweep exit $?" >> "$OUT/sweep.log"
tail -12 "$OUT/sweep.log" >&2
(cd "$REPO" && git branch --list 'kgate/optimize/*') > "$OUT/sweep-branches.txt"
"$KGATE" prs --repo "$REPO" --state-dir "$STATE" >> "$OUT/sweep-branches.txt" 2>&1
elapsed sweep

# 3. Every accepted proposal together in one tree.
python3 "$HERE/sweep_gap.py" apply --state-dir "$STATE" --example "$REPO" \
  --base "$WORK/base" --swept "$WORK/swept" > "$OUT/sweep-applied.txt" || exit 3
cat "$OUT/sweep-applied.txt" >&2

# 4. Base against swept in the workload, interleaved, alternating which goes first.
bash "$WORK/base/workload/build.sh" > "$OUT/sweep-build-base.log" 2>&1 & b1=$!
bash "$WORK/swept/workload/build.sh" > "$OUT/sweep-build-swept.log" 2>&1 & b2=$!
wait $b1; r1=$?; wait $b2; r2=$?
[ $r1 -eq 0 ] && [ $r2 -eq 0 ] || { echo "sweep_gap: building the workload failed (see sweep-build-*.log)" >&2; exit 3; }
elapsed build
RUNS_DIR="$OUT/sweep-runs" && rm -rf "$RUNS_DIR" && mkdir -p "$RUNS_DIR"
for i in $(seq 1 "$RUNS"); do
  order="base swept"; [ $((i % 2)) -eq 0 ] && order="swept base"
  for v in $order; do
    "$WORK/$v/workload/build/llama" --seed 7 --prompt 256 --new-tokens 16 --repeat 3 \
      --out "$RUNS_DIR/gap-$v-$i.json" > /dev/null || { echo "sweep_gap: the $v workload failed" >&2; exit 3; }
  done
done
elapsed runs
python3 "$HERE/sweep_gap.py" table --state-dir "$STATE" --runs-dir "$RUNS_DIR" --tasks "$OUT/sweep-tasks.json" \
  --manifest "$REPO/kgate.json" --out "$OUT/sweep_gap.md"
rc=$?
python3 "$HERE/episodes_table.py" --manifest "$REPO/kgate.json" --state-dir "$STATE" \
  --out "$OUT/sweep_episodes.md" ${PYTORCH_JSON:+--pytorch "$PYTORCH_JSON"} > /dev/null
elapsed tables
rm -rf "$WORK" "$WORK-trace.json"
exit $rc
