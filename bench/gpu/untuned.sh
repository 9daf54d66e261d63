#!/bin/bash
# The built-in tuner on kernels nobody prepared for it (issue 17, item 5):
# bench/thirdparty's repository (NVIDIA's CUDA samples reduction and
# vectorAdd), with no tunables declared. `reduce` declares none upstream;
# `vector_add`'s BLOCK tunable is taken out here (a literal block of 256, the
# sample's threadsPerBlock), so the tuner has only its moves that need no
# tunable: the block size where the launch allows it, __launch_bounds__ and
# register caps, unroll pragmas, cache hints. Each move is gated like any
# candidate; the episode profiles the original and each new best.
#
#   bench/gpu/untuned.sh KGATE OUT [MAX_ITERS]
#
# Writes OUT/untuned/<kernel>.log (the episode's progress) and
# OUT/untuned/untuned.md: per kernel the geomean speedup of the final gate,
# each iteration's move and outcome, and the profile's share of the
# episode's wall time. Needs git, nvcc (reduce compiles with nvcc) and python3.
set -euo pipefail
KGATE=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
OUT=$(mkdir -p "$2/untuned" && cd "$2/untuned" && pwd)
ITERS=${3:-8}
HERE=$(cd "$(dirname "$0")/.." && pwd)
REPO=/tmp/kgate-untuned
STATE=/tmp/kgate-untuned-state
rm -rf "$REPO" "$STATE"
bash "$HERE/thirdparty/make_repo.sh" "$REPO" > /dev/null
cd "$REPO"
git checkout -q main
# vector_add without its tunable: the manifest as a user would first write it.
sed -i 's|"launch": {"grid": \["ceil_div(n, BLOCK)"\], "block": \["BLOCK"\]},|"launch": {"grid": ["ceil_div(n, 256)"], "block": [256]}|' kgate.json
sed -i '/"tunables": {"BLOCK": \[256, 128, 512, 1024\]}/d' kgate.json
"$KGATE" check . --backend cuda > "$OUT/check.log" 2>&1 || { cat "$OUT/check.log"; exit 1; }
for kernel in reduce vector_add; do
  "$KGATE" optimize "$kernel" --repo . --backend cuda --agent tuner --max-iters "$ITERS" \
    --patience "$ITERS" --new --no-in-model --state-dir "$STATE" > "$OUT/$kernel.log" 2>&1 ||
    echo "optimize $kernel exited $?" >> "$OUT/$kernel.log"
done
python3 - "$STATE/episodes" > "$OUT/untuned.md" <<'PY'
import json, pathlib, sys
print("| kernel | moves tried | kept | final geomean speedup | profile s / episode s |")
print("|---|---|---|---:|---:|")
detail = []
for f in sorted(pathlib.Path(sys.argv[1]).glob("*/episode.json")):
    r = json.load(open(f))
    its = r.get("iterations") or []
    kept = [i for i in its if i.get("accepted")]
    fin = (r.get("final") or {}).get("geomean_ratio")
    speed = f"{1 / fin:.2f}x" if fin else "n/a"
    prof = sum((p.get("seconds") or 0) for p in r.get("profiles") or [])
    print(f"| {r['kernel']} | {len(its)} | {len(kept)} | {speed} | "
          f"{prof:.1f} / {(r.get('elapsed_s') or 0):.1f} |")
    for i in its:
        change = (i.get("plan") or {}).get("change", "")
        detail.append(f"- {r['kernel']} #{i.get('index')}: {change[:90]} -> {i.get('outcome')}")
print()
print("\n".join(detail))
PY
cat "$OUT/untuned.md"
