#!/bin/sh
# compile_once.sh KGATE REPO [ARCH] -- KGATE's `kgate check` of REPO with an empty
# compile cache, then again after a one-line change (a comment) to the source file
# that most entries share: the wall time of each and how many compiles each made
# (the `--json` records not served from the cache). What kgate gate pays for compiling a revision
# of a many-entry file, without a GPU (docs/BENCHMARKS.md, "Compiling a file once").
set -eu
KGATE=$1 REPO=$2 ARCH=${3:-sm_90}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$REPO" "$work/repo"
export KGATE_CACHE_DIR="$work/cache"
run() {
  start=$(date +%s.%N)
  "$KGATE" check "$work/repo" --arch "$ARCH" --backend cuda --json "$work/$1.json" > "$work/$1.log" 2>&1 || true
  end=$(date +%s.%N)
  counts=$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["compiles"]; print("%d entries, %d not from the cache" % (len(c), sum(not x.get("from_cache") for x in c)))' "$work/$1.json" 2>/dev/null || echo "no --json")
  printf '%s: %.1f s wall, %s (%s)\n' "$1" "$(echo "$end - $start" | bc)" "$counts" "$(tail -1 "$work/$1.log" | cut -c1-60)"
}
run cold
# The file most entries name: one comment line appended, as a one-line pull request would.
shared=$(python3 - "$work/repo/kgate.json" <<'PY'
import collections, json, re, sys
text = open(sys.argv[1]).read()
sources = re.findall(r'"source"\s*:\s*"([^"]+\.cu[h]?)"', text)
print(collections.Counter(sources).most_common(1)[0][0])
PY
)
echo "// one line changed" >> "$work/repo/$shared"
echo "changed: $shared ($(grep -c "\"source\": *\"$shared\"" "$work/repo/kgate.json") entries name it)"
run one_line_change
