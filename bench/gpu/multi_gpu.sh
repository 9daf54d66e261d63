#!/bin/bash
# Several GPUs of one host sharing kgate's work (docs/runners.md, "Several GPUs
# of one host"): does a sweep on the other GPUs disturb the timing on one, and
# how does a sweep scale with GPUs. Needs a host with 2-8 GPUs of one model.
#
#   bench/gpu/multi_gpu.sh KGATE EXAMPLE OUT
#
# interference  A/A gates (`kgate gate --all` of a branch that only adds a
#        comment to every kernel source against main, bench/gpu/aa_bias.sh's
#        repository) on GPU 0, SEEDS seeds: first on an idle host (OUT/idle),
#        then while `kgate sweep --gpus 1-(N-1)` runs tuner episodes on every
#        other GPU without end (OUT/loaded). The gates run on the CPUs a sweep
#        of every GPU gives GPU 0's worker, the load on the others
#        (multi_gpu.py cpus); PINNED=0 leaves both unpinned.
#        nvidia-smi's clocks, power and temperatures every 2 s: OUT/smi-*.csv.
# scaling  The README's sweep (scripts/try-example's settings) of EXAMPLE, and
#        of a copy with its kernels repeated to at least 16 (multi_gpu.py
#        replicate), on 1, 2, 4 and 8 GPUs (GPU_COUNTS, those the host has),
#        each on a fresh git copy: wall time and the pull requests
#        (branch and kgate.json/source diff) in OUT/scaling/<repo>-<n>.json.
# table  OUT/multi_gpu.md: non-same verdicts idle and loaded, the medians
#        loaded against idle per kernel-shape; wall time, speedup, efficiency
#        (T1 / (N x TN)) and whether the pull requests are those of one GPU.
#
# Resumable: a gate report or a scaling result in OUT is not made again.
# Environment: SEEDS ("1 2 3 4 5 6 7 8": the example's 41 CUDA shapes x 8 =
# 328 verdicts per condition), PHASES ("interference scaling table"),
# GPU_COUNTS ("1 2 4 8"), LOAD_WARMUP_S (90: the load's workers all timing
# before the first gate), SWEEP_ARGS (the README's: --max-iters 4
# --patience 2 --shape-budget-s 0.3), PINNED (1).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
KGATE=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
EXAMPLE=$(cd "${2:?usage: multi_gpu.sh KGATE EXAMPLE OUT}" && pwd)
OUT=${3:?usage: multi_gpu.sh KGATE EXAMPLE OUT}
mkdir -p "$OUT/idle" "$OUT/loaded" "$OUT/scaling" "$OUT/logs"
OUT=$(cd "$OUT" && pwd)
SEEDS=${SEEDS:-"1 2 3 4 5 6 7 8"} PHASES=${PHASES:-"interference scaling table"}
GPU_COUNTS=${GPU_COUNTS:-"1 2 4 8"} LOAD_WARMUP_S=${LOAD_WARMUP_S:-90} PINNED=${PINNED:-1}
SWEEP_ARGS=${SWEEP_ARGS:-"--max-iters 4 --patience 2 --shape-budget-s 0.3"}
PY="python3 $HERE/multi_gpu.py"
GPUS=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
[ "$GPUS" -ge 2 ] || { echo "multi_gpu: $GPUS GPU(s); this needs at least 2" >&2; exit 2; }
git_() { git -C "$1" -c user.name=kgate-bench -c user.email=bench@kgate.invalid "${@:2}"; }
fresh_copy() {  # fresh_copy FROM TO: a git repository of FROM on main
  rm -rf "$2" && cp -r "$1" "$2" && rm -rf "$2/workload/build" "$2/.kgate"
  git_ "$2" init -q && git_ "$2" checkout -q -b main && git_ "$2" add -A && git_ "$2" commit -qm "kernels"
}
smi() {  # smi FILE: clocks, power and temperature of every GPU every 2 s, until killed
  nvidia-smi --query-gpu=timestamp,index,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu \
    --format=csv -l 2 > "$1" 2>/dev/null &
  echo $!
}

if [[ " $PHASES " == *" interference "* ]]; then
  REPO=$OUT/aa-repo
  if [ ! -d "$REPO/.git" ]; then
    fresh_copy "$EXAMPLE" "$REPO"
    git_ "$REPO" checkout -q -b aa && python3 "$HERE/aa_bias.py" comment "$REPO" cuda &&
      git_ "$REPO" commit -qam "A/A: a comment in every kernel source" && git_ "$REPO" checkout -q main
  fi
  read -r GATE_CPUS LOAD_CPUS < <($PY cpus "$GPUS")
  pin_gate=(); pin_load=()
  if [ "$PINNED" = 1 ]; then pin_gate=(taskset -c "$GATE_CPUS"); pin_load=(taskset -c "$LOAD_CPUS"); fi
  echo "multi_gpu: gates on GPU 0 (CPUs $GATE_CPUS), load on GPUs 1-$((GPUS - 1)) (CPUs $LOAD_CPUS), pinned=$PINNED" >&2
  gates() {  # gates DIR: one A/A gate per seed on GPU 0, reports kept
    for seed in $SEEDS; do
      [ -s "$1/seed-$seed.json" ] && continue
      "${pin_gate[@]}" "$KGATE" gate --repo "$REPO" --base main --head aa --all --backend cuda --gpu 0 \
        --seed "$seed" --json "$1/seed-$seed.json.tmp" > "$OUT/logs/$(basename "$1")-$seed.log" 2>&1
      rc=$?
      if [ $rc -le 1 ] && [ -s "$1/seed-$seed.json.tmp" ]; then mv "$1/seed-$seed.json.tmp" "$1/seed-$seed.json"
      else echo "multi_gpu: gate seed $seed exited $rc" >&2; rm -f "$1/seed-$seed.json.tmp"; fi
    done
  }
  pid=$(smi "$OUT/smi-idle.csv"); gates "$OUT/idle"; kill "$pid" 2>/dev/null
  # The load: tuner episodes on every other GPU that do not end (no iteration cap that
  # a sweep reaches in the time the gates take), in a process group of its own.
  LOAD=$OUT/load-repo
  fresh_copy "$EXAMPLE" "$LOAD"
  setsid "${pin_load[@]}" "$KGATE" sweep --repo "$LOAD" --backend cuda --gpus "1-$((GPUS - 1))" \
    --no-baselines --no-publish --new --max-iters 100000 --patience 100000 \
    > "$OUT/logs/load.log" 2>&1 &
  load=$!
  pid=$(smi "$OUT/smi-loaded.csv")
  sleep "$LOAD_WARMUP_S"
  gates "$OUT/loaded"
  kill "$pid" 2>/dev/null
  kill -TERM -- "-$load" 2>/dev/null; wait "$load" 2>/dev/null
  grep -c "^\[gpu " "$OUT/logs/load.log" | sed 's/^/multi_gpu: load lines: /' >&2
fi

if [[ " $PHASES " == *" scaling "* ]]; then
  REP16=$OUT/example-x16
  [ -f "$REP16/kgate.json" ] || $PY replicate "$EXAMPLE" "$REP16" 16
  for repo in "$EXAMPLE" "$REP16"; do
    name=$(basename "$repo")
    for n in $GPU_COUNTS; do
      [ "$n" -le "$GPUS" ] || continue
      result=$OUT/scaling/$name-$n.json
      [ -s "$result" ] && continue
      work=/tmp/kgate-multi-gpu-$name-$n
      fresh_copy "$repo" "$work"
      echo "multi_gpu: sweep of $name on $n GPU(s)" >&2
      start=$(date +%s.%N)
      # shellcheck disable=SC2086
      "$KGATE" sweep --repo "$work" --backend cuda --gpus "0-$((n - 1))" --seed 1 --no-baselines $SWEEP_ARGS \
        > "$OUT/logs/sweep-$name-$n.out" 2> "$OUT/logs/sweep-$name-$n.err"
      rc=$?
      end=$(date +%s.%N)
      $PY prs "$KGATE" "$work" "$name" "$n" "$start" "$end" "$rc" > "$result.tmp" && mv "$result.tmp" "$result"
      rm -rf "$work"
    done
  done
fi

if [[ " $PHASES " == *" table "* ]]; then
  $PY table "$OUT" > "$OUT/multi_gpu.md" && cat "$OUT/multi_gpu.md"
fi
