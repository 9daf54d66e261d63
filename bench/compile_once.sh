#!/bin/sh
# compile_once.sh KGATE REPO [ARCH]
# What kgate pays to compile a revision after a one-line change to the source file that most
# of REPO's entries share, without a GPU (`kgate check`, CUDA backend):
#   cold             every kernel and reference, empty compile cache
#   once per file    after one comment line appended to the shared file: the file compiled
#                    once for all its entries (what kgate gate does)
#   once per entry   the same change compiled once per entry naming the file, each from the
#                    warm cache of before the change (what kgate did before it compiled a file
#                    once per revision: one compile of the same file per declared entry)
# Each line: wall time and the compiles not served from the cache (`--json`).
set -eu
KGATE=$1 REPO=$2 ARCH=${3:-sm_90}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$REPO" "$work/repo"
now() { date +%s.%N; }
compiled() {  # --json files -> compiles not from the cache
  python3 -c 'import json,sys; print(sum(sum(not c.get("from_cache") for c in json.load(open(f))["compiles"]) for f in sys.argv[1:]))' "$@"
}
check() {  # cache json [--kernel K]
  cache=$1 json=$2
  shift 2
  KGATE_CACHE_DIR="$cache" "$KGATE" check "$work/repo" --arch "$ARCH" --backend cuda --json "$json" "$@" > "$json.log" 2>&1 ||
    { echo "compile_once: kgate check failed ($(tail -1 "$json.log"))" >&2; exit 1; }
}
s=$(now); check "$work/warm" "$work/cold.json"; e=$(now)
printf 'cold: %.1f s, %s compiles\n' "$(echo "$e - $s" | bc)" "$(compiled "$work/cold.json")"
entries=$(python3 - "$(dirname "$0")" "$work/repo/kgate.json" <<'PY'
import collections, sys
sys.path.insert(0, sys.argv[1])
from ported_table import load_manifest  # kgate.json with its comments
by_file = collections.defaultdict(list)
for k in load_manifest(sys.argv[2])["kernels"]:
    impl = k.get("impl", {}).get("cuda", k)  # a kernel's CUDA implementation, or the kernel itself
    if impl.get("source", "").endswith((".cu", ".cuh")):
        by_file[impl["source"]].append(k["name"])
shared, names = max(by_file.items(), key=lambda kv: len(kv[1]))
print(shared)
print(" ".join(names))
PY
)
shared=$(echo "$entries" | sed -n 1p)
names=$(echo "$entries" | sed -n 2p)
echo "// one line changed" >> "$work/repo/$shared"
echo "changed: $shared, named by $(echo "$names" | wc -w) entries: $names"
cp -r "$work/warm" "$work/c"
s=$(now); check "$work/c" "$work/once.json"; e=$(now)
printf 'once per file: %.1f s, %s compiles\n' "$(echo "$e - $s" | bc)" "$(compiled "$work/once.json")"
total=0
for k in $names; do
  rm -rf "$work/c" && cp -r "$work/warm" "$work/c"
  s=$(now); check "$work/c" "$work/entry-$k.json" --kernel "$k"; e=$(now)
  total=$(echo "$total + $e - $s" | bc)
done
printf 'once per entry: %.1f s, %s compiles\n' "$total" "$(compiled "$work"/entry-*.json)"
