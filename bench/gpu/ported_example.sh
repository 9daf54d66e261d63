#!/bin/bash
# A ported kernel library on a GPU (issue 19): the lines of the upstream files
# changed to adopt kgate, every kernel compiled and checked on every shape,
# and a short tuner episode per kernel over its declared tunables; then one
# Markdown table (bench/ported_table.py):
#   bench/gpu/ported_example.sh KGATE REPO OUT
# KGATE: the kgate binary; REPO: examples/flashinfer-norm (or any manifest
# folder); OUT: where kgate_run.json, the episode records (OUT/episodes-state),
# one log per step and ported.md go.
# BACKEND (default cuda) picks the backend: BACKEND=host runs the same steps on
# a manifest's host kernels without a GPU (how the script is tested).
# BUDGET (seconds per episode, default 60) and ITERS (tuner moves, default 12)
# bound the episodes; each gates only the decode and prefill shapes.
set -u
KGATE=$1 REPO=$2 OUT=$3
BACKEND=${BACKEND:-cuda} BUDGET=${BUDGET:-60} ITERS=${ITERS:-12}
HERE=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
status=0
if [ -f "$REPO/upstream.json" ]; then
  python3 "$HERE/lines_changed.py" "$REPO" --json "$OUT/lines_changed.json" > "$OUT/lines_changed.md" ||
    status=1
  tail -1 "$OUT/lines_changed.md" >&2
fi
echo "=== kgate run ($BACKEND)" >&2
"$KGATE" run "$REPO" --backend "$BACKEND" --seed 1 --json "$OUT/kgate_run.json" > "$OUT/kgate_run.log" 2>&1 ||
  status=1
tail -3 "$OUT/kgate_run.log" >&2
for k in $(python3 "$HERE/ported_table.py" --manifest "$REPO" --kernels-of "$BACKEND"); do
  echo "=== $k: tuner episode, budget ${BUDGET}s" >&2
  start=$(date +%s)
  timeout $((BUDGET + 120)) "$KGATE" optimize "$k" --repo "$REPO" --backend "$BACKEND" --agent tuner --new \
    --state-dir "$OUT/episodes-state" --no-in-model --no-publish --profile off --seed 1 \
    --max-iters "$ITERS" --patience 4 --budget-s "$BUDGET" --phases decode,prefill --shape-budget-s 0.25 \
    > "$OUT/episode-$k.log" 2>&1
  echo "=== $k exit $? after $(( $(date +%s) - start ))s" | tee -a "$OUT/episode-$k.log" >&2
  tail -2 "$OUT/episode-$k.log" >&2
done
python3 "$HERE/ported_table.py" --manifest "$REPO" --run "$OUT/kgate_run.json" \
  --state-dir "$OUT/episodes-state" ${BACKEND:+--backend "$BACKEND"} \
  $([ -f "$OUT/lines_changed.json" ] && echo --lines "$OUT/lines_changed.json") --out "$OUT/ported.md" || status=1
exit $status
