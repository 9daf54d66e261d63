#!/bin/bash
# A tuner episode on every CUDA example kernel, then the table for
# docs/BENCHMARKS.md (bench/episodes_table.py):
#   bench/gpu/episodes.sh KGATE REPO OUT
# KGATE: the kgate binary; REPO: examples/llm-ops (or a copy); OUT: where the
# episode records (OUT/episodes-state), one log per kernel and episodes.md go.
# Each episode gates only the decode and prefill shapes (the timed ones) with
# a short sampling budget per shape and a wall-time budget per kernel, so all
# six take about eight minutes of GPU time (the search reuses each shape's
# inputs and references; the final gate of each draws new ones). Kernels of
# one family run one after the other, so the second one starts from the
# first one's lessons.
set -u
KGATE=$1 REPO=$2 OUT=$3
HERE=$(cd "$(dirname "$0")/.." && pwd)
STATE="$OUT/episodes-state"
mkdir -p "$STATE"
# kernel:episode budget in seconds (the softmax and gemv gates draw large inputs on the host).
# EPISODE_BUDGETS overrides the list below ("kernel:seconds ...").
# The GPU's copy ceiling, measured once and stored (roofline.h), so each
# episode's record says what bounds its best against it (episode_bounds.h).
"$KGATE" profile rmsnorm --repo "$REPO" --backend cuda --shape decode-b1 --no-counters \
  > "$OUT/episodes-ceiling.log" 2>&1 || echo "=== the copy ceiling was not measured" >&2
for spec in ${EPISODE_BUDGETS:-rmsnorm:50 fused_add_rmsnorm:50 silu_and_mul:50 rotary_embedding:50 softmax:70 gemv:80}; do
  k=${spec%%:*} budget=${spec##*:}
  shapes=$(python3 "$HERE/episodes_table.py" --manifest "$REPO/kgate.json" --shapes-of "$k")
  echo "=== $k: shapes $shapes, budget ${budget}s" >&2
  start=$(date +%s)
  timeout $((budget + 60)) "$KGATE" optimize "$k" --repo "$REPO" --backend cuda --agent tuner --new \
    --state-dir "$STATE" --no-in-model --no-publish --seed 1 --max-iters 20 --patience 4 --budget-s "$budget" \
    --shapes "$shapes" --shape-budget-s 0.25 \
    > "$OUT/episode-$k.log" 2>&1
  echo "=== $k exit $? after $(( $(date +%s) - start ))s" | tee -a "$OUT/episode-$k.log" >&2
  tail -3 "$OUT/episode-$k.log" >&2
done
python3 "$HERE/episodes_table.py" --manifest "$REPO/kgate.json" --state-dir "$STATE" \
  --out "$OUT/episodes.md" ${PYTORCH_JSON:+--pytorch "$PYTORCH_JSON"}
