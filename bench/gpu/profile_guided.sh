#!/bin/bash
# The README's sweep (scripts/try-example: --max-iters 4 --patience 2
# --shape-budget-s 0.3) with profile-guided plans against the tuner without a
# profile (issue 17): two arms, the same budgets and seed, each on its own
# fresh scratch git copy of the example with its own state directory, then
# the table for docs/BENCHMARKS.md (bench/profile_guided_table.py).
#
#   bench/gpu/profile_guided.sh KGATE REPO OUT
#
# KGATE: the kgate binary; REPO: examples/llm-ops (or a copy); OUT: where
# OUT/profile_guided/{on,off}/ (sweep.log, state/) and profile_guided.md go.
# Arms: `--profile on` (the default: CUPTI counters on a GPU, the degraded
# profile on the host) and `--profile off` (no profile: the tuner orders its
# moves from the timing-only class). Environment:
#   BACKEND        cuda (default) or host
#   ARMS           "on off" (default); "timing" is the third value
#   SEED           1
#   ARM_TIMEOUT_S  wall-time limit of one arm's sweep (default 140)
#   TOTAL_BUDGET_S --total-budget-s of each arm's sweep, a safety net so a
#                  slow machine ends with the sweep's table instead of a kill
#                  (default 110, below the timeout: the last episode may run
#                  past it by an iteration and its final gate; 0: none, as
#                  the README's sweep)
#   SWEEP_ARGS     extra arguments for both arms' sweeps
#   CACHE_PER_ARM  1: each arm compiles into its own empty KGATE_CACHE_DIR
#                  (a scratch folder, ~350 MB on the host), so the second arm's wall time does not gain
#                  from the first arm's compiles and host references; 0
#                  (default): both use the caller's cache, which the first
#                  arm warms for the second (the speedups do not depend on it)
# Baselines are not recorded (--no-baselines): they time the first versions
# before the episodes and change nothing the tuner does. Needs git, python3.
set -u
KGATE=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
REPO=$(cd "$2" && pwd)
OUT=$(mkdir -p "$3/profile_guided" && cd "$3/profile_guided" && pwd)
HERE=$(cd "$(dirname "$0")/.." && pwd)
BACKEND=${BACKEND:-cuda} SEED=${SEED:-1}
ARM_TIMEOUT_S=${ARM_TIMEOUT_S:-140} TOTAL_BUDGET_S=${TOTAL_BUDGET_S:-110}
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/kgate-profile-guided.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
total=()
[ "$TOTAL_BUDGET_S" != 0 ] && total=(--total-budget-s "$TOTAL_BUDGET_S")
arm_args=()
for arm in ${ARMS:-on off}; do
  dir="$OUT/$arm"
  rm -rf "$dir" && mkdir -p "$dir"
  # A fresh scratch git copy per arm, as scripts/try-example makes it: the
  # local forge writes branches into the repository it sweeps.
  copy="$SCRATCH/$arm"
  mkdir -p "$copy" && cp -R "$REPO/." "$copy"
  rm -rf "$copy/.kgate" "$copy/.git"
  git -C "$copy" init -q && git -C "$copy" checkout -q -b main && git -C "$copy" add -A
  git -C "$copy" -c user.name="kgate example" -c user.email=example@localhost \
    commit -q -m "llm-ops example kernels"
  cmd=("$KGATE" sweep --repo "$copy" --backend "$BACKEND" --profile "$arm" --seed "$SEED"
    --max-iters 4 --patience 2 --shape-budget-s 0.3 --no-baselines
    --state-dir "$dir/state" "${total[@]}" ${SWEEP_ARGS:-})
  echo "=== arm $arm: ${cmd[*]/#$KGATE/kgate}" | sed "s|$copy|COPY|g; s|$dir|ARM|g" | tee "$dir/command.txt" >&2
  start=$(date +%s.%N)
  if [ "${CACHE_PER_ARM:-0}" = 1 ]; then
    KGATE_CACHE_DIR="$SCRATCH/cache-$arm" timeout "$ARM_TIMEOUT_S" "${cmd[@]}" > "$dir/sweep.log" 2>&1
  else
    timeout "$ARM_TIMEOUT_S" "${cmd[@]}" > "$dir/sweep.log" 2>&1
  fi
  rc=$?
  wall=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$start" "$(date +%s.%N)")
  echo "$rc $wall" > "$dir/exit.txt"
  tail -12 "$dir/sweep.log" >&2
  echo "=== arm $arm exit $rc after ${wall}s" | tee -a "$dir/sweep.log" >&2
  arm_args+=(--arm "$arm=$dir")
done
python3 "$HERE/profile_guided_table.py" --manifest "$REPO/kgate.json" "${arm_args[@]}" \
  --out "$OUT/profile_guided.md"
cat "$OUT/profile_guided.md"
