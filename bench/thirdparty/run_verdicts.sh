#!/bin/bash
# Gates every branch of the repository make_repo.sh built against main and
# writes OUT/verdicts.md: each branch's verdict and reason against
# expected.json's. One log, exit code and JSON report per branch in OUT.
#
#   bench/thirdparty/run_verdicts.sh KGATE DEST OUT
# Environment: BACKEND (default cuda), SEED (default 1), BUDGET (seconds of
# timing per kernel-shape; default the manifest's), BRANCHES (default: all).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
KGATE=${1:?usage: run_verdicts.sh KGATE DEST OUT}
DEST=${2:?usage: run_verdicts.sh KGATE DEST OUT}
OUT=${3:?usage: run_verdicts.sh KGATE DEST OUT}
mkdir -p "$OUT"
BACKEND=${BACKEND:-cuda} SEED=${SEED:-1}
branches=${BRANCHES:-$(python3 -c 'import json,sys; print(" ".join(b["branch"] for b in json.load(open(sys.argv[1]))["branches"]))' "$HERE/expected.json")}
for branch in $branches; do
  echo "=== $branch" >&2
  args=(gate --repo "$DEST" --base main --head "$branch" --backend "$BACKEND" --seed "$SEED"
        --json "$OUT/$branch.json")
  [ -n "${BUDGET:-}" ] && args+=(--budget "$BUDGET")
  rm -f "$OUT/$branch.json"
  # In the background, so that a time limit's TERM stops the gate too (it holds the GPU lock).
  "$KGATE" "${args[@]}" > "$OUT/$branch.log" 2>&1 &
  pid=$!
  trap "kill $pid 2>/dev/null; exit 143" TERM INT
  wait $pid
  echo $? > "$OUT/$branch.exit"
  trap - TERM INT
  tail -2 "$OUT/$branch.log" >&2
done
python3 "$HERE/verdict_table.py" "$HERE/expected.json" "$OUT" > "$OUT/verdicts.md"
cat "$OUT/verdicts.md"
