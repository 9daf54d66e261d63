#!/bin/bash
# bench/ggml on a GPU machine: builds the replay of ggml's history, gates
# every case of cases.json with kgate (one `kgate gate --kernel K` per case and
# kernel, JSON reports), runs the independent harness on the same cases, and
# writes OUT/ggml_verdicts.md: kgate's verdict and ratio per case and shape
# next to the harness's ratio, against the expected verdict.
#
#   bench/ggml/run_gpu.sh BUNDLE_DIR OUT
# BUNDLE_DIR as bench/gpu/bundle.sh makes it: bin/kgate, lib/, src/bench/ggml
# (this folder) and ggml/ (harness/build.sh's output: ggml_harness, kernels.tsv,
# cubins). OUT gets ggml_verdicts.md and ggml_reports.tgz (every gate's JSON,
# log and exit code, the harness's output); KEEP=1 keeps the ggml/ folder
# they are packed from. Environment: CASES (space-separated commits, default
# all), BUDGET (seconds of timing per kernel-shape, default the manifest's),
# GATE_TIMEOUT (seconds per gate, default 150), HARNESS_SECONDS (per shape and
# side pair, default 0.3). Needs git, python3, nvcc (kgate compiles with it)
# and compute-sanitizer for the racecheck cases.
set -u
BUNDLE=$(cd "${1:?usage: run_gpu.sh BUNDLE_DIR OUT}" && pwd)
OUT=${2:?usage: run_gpu.sh BUNDLE_DIR OUT}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT/ggml"
OUT=$(cd "$OUT" && pwd)
REPORTS="$OUT/ggml"
KGATE="$BUNDLE/bin/kgate"
export LD_LIBRARY_PATH="$BUNDLE/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$PATH:${CUDA_HOME:-/usr/local/cuda}/bin"
# A cache of compiles and references of its own: every gate of the run shares it.
export KGATE_CACHE_DIR="${KGATE_CACHE_DIR:-$REPORTS/cache}"
start=$(date +%s)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash "$HERE/make_repo.sh" "$work/replay" > "$REPORTS/make_repo.log" 2>&1 ||
  { echo "run_gpu: make_repo.sh failed (see $REPORTS/make_repo.log)" >&2; exit 1; }

# One line per gate: commit, base, head, kernel, sanitizer tool ('' for none).
python3 - "$HERE/cases.json" "${CASES:-}" > "$work/gates.tsv" <<'PY'
import json, sys
only = set(sys.argv[2].split())
for case in json.load(open(sys.argv[1]))["cases"]:
    if only and case["commit"] not in only:
        continue
    for k in case["kernels"]:
        print("\t".join([case["commit"], case["base"], case["head"], k["kernel"], k.get("sanitize", "-")]))
PY

# Warm the compile cache: `kgate check` of every revision's kernels, in parallel (the gates
# below then find their cubins instead of compiling one after another).
w0=$(date +%s)
cut -f2,3,4 "$work/gates.tsv" | awk -F'\t' '{print $1 "\t" $3; print $2 "\t" $3}' | sort -u > "$work/checks.tsv"
while IFS=$'\t' read -r rev kernel; do
  # A kernel new in the head is not in its base's kgate.json.
  git -C "$work/replay" show "$rev:kgate.json" | grep -q "\"name\": \"$kernel\"" || continue
  tree="$work/trees/${rev#up/}-$kernel"
  mkdir -p "$tree" && git -C "$work/replay" archive "$rev" | tar x -C "$tree"
  printf '%s\t%s\n' "$tree" "$kernel"
done < "$work/checks.tsv" > "$work/check-trees.tsv"
mkdir -p "$REPORTS/warm-up"
tr '\t' '\n' < "$work/check-trees.tsv" |
  xargs -d '\n' -n 2 -P "$(nproc)" sh -c \
    '"$0" check "$2" --arch sm_90 --kernel "$3" > "$1/$(basename "$2").log" 2>&1 || echo "$(basename "$2")" >> "$1/failed"' \
    "$KGATE" "$REPORTS/warm-up" || true
echo "$(( $(date +%s) - w0 ))" > "$REPORTS/warm-up.seconds"

while IFS=$'\t' read -r commit base head kernel sanitize; do
  name="$commit-$kernel"
  echo "=== $name ($base..$head)" >&2
  args=(gate --repo "$work/replay" --base "$base" --head "$head" --kernel "$kernel" --backend cuda
        --seed 1 --json "$REPORTS/$name.json")
  [ "$sanitize" != "-" ] && args+=(--sanitize-kernels "$sanitize")
  [ -n "${BUDGET:-}" ] && args+=(--budget "$BUDGET")
  rm -f "$REPORTS/$name.json"
  g0=$(date +%s)
  # In the background, so that a time limit's TERM stops the gate too (it holds the GPU).
  timeout "${GATE_TIMEOUT:-150}" "$KGATE" "${args[@]}" > "$REPORTS/$name.log" 2>&1 &
  pid=$!
  trap "kill $pid 2>/dev/null; exit 143" TERM INT
  wait $pid
  echo $? > "$REPORTS/$name.exit"
  trap - TERM INT
  echo "$(( $(date +%s) - g0 ))" > "$REPORTS/$name.seconds"
  tail -2 "$REPORTS/$name.log" >&2
done < "$work/gates.tsv"

echo "=== harness" >&2
h0=$(date +%s)
harness_args=("$BUNDLE/ggml" --json "$REPORTS/harness.json" --seconds "${HARNESS_SECONDS:-0.3}")
[ -n "${CASES:-}" ] && harness_args+=(--case "$CASES")
"$BUNDLE/ggml/ggml_harness" "${harness_args[@]}" > "$REPORTS/harness.log" 2>&1
echo $? > "$REPORTS/harness.exit"
echo "$(( $(date +%s) - h0 ))" > "$REPORTS/harness.seconds"
tail -3 "$REPORTS/harness.log" >&2

echo "$(( $(date +%s) - start ))" > "$REPORTS/total.seconds"
python3 "$HERE/verdict_table.py" "$HERE/cases.json" "$REPORTS" > "$OUT/ggml_verdicts.md"
rm -rf "$REPORTS/cache"
tar czf "$OUT/ggml_reports.tgz" -C "$OUT" ggml
[ "${KEEP:-0}" = 1 ] || rm -rf "$REPORTS"
cat "$OUT/ggml_verdicts.md"
