#!/bin/sh
# model_round.sh KGATE WORK [tuner]
# One round of the model-in-the-loop measurement (README.md here): every
# kernel of model_kernels.tsv whose hand-off episode has not ended runs to its
# next model turn (`kgate optimize --agent handoff --reflect-with-plan`), so
# each waits for one answer; an episode whose answers are all in place runs
# on. With `tuner`, the built-in tuner's episode of each kernel instead, on the
# same shapes, to its end. WORK holds the repositories (setup_work.sh) and
# the state folders, WORK/state/<library> (WORK/tuner/<library> for the tuner);
# WORK/logs/<label>.log each run's output. Runs every kernel; exits 0.
set -u
KGATE=$1 WORK=$2 MODE=${3:-handoff}
here=$(dirname "$0")
ITERS=${ITERS:-3}
TIMEOUT=${TIMEOUT:-150}
mkdir -p "$WORK/logs" "$WORK/ended"
grep -v '^#' "$here/model_kernels.tsv" | while IFS="$(printf '\t')" read -r label lib kernel shapes; do
  [ -n "$label" ] || continue
  if [ "$MODE" = tuner ]; then
    state=$WORK/tuner/$lib log=$WORK/logs/tuner-$label.log mark=$WORK/ended/tuner-$label
    set -- --agent tuner
  else
    state=$WORK/state/$lib log=$WORK/logs/$label.log mark=$WORK/ended/$label
    set -- --agent handoff --reflect-with-plan
  fi
  [ -e "$mark" ] && continue
  start=$(date +%s)
  timeout "$TIMEOUT" "$KGATE" optimize "$kernel" --repo "$WORK/$lib" --backend cuda "$@" \
    --max-iters "$ITERS" --shapes "$shapes" --shape-budget-s 0.3 --seed 1 \
    --state-dir "$state" >> "$log" 2>&1 < /dev/null
  rc=$?
  echo "== $label: exit $rc in $(( $(date +%s) - start )) s" | tee -a "$log"
  # 4: waiting for an answer, 124: cut by the timeout (resumed next round);
  # anything else ends the kernel's episode.
  case $rc in 4|124) ;; *) echo "$rc" > "$mark" ;; esac
done
exit 0
