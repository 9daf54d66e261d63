#!/bin/bash
# Lines of ggml's files changed in the replay (the target is 0, in all and
# inside kernel bodies): bench/lines_changed.py on the replay's tree at each
# TAG, against the blob ids upstream.json records for that commit.
#
#   bench/ggml/lines_changed.sh REPLAY [TAG...]     (default: every case's base and head)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
REPLAY=${1:?usage: lines_changed.sh REPLAY [TAG...]}
shift
tags=("$@")
if [ ${#tags[@]} -eq 0 ]; then
  mapfile -t tags < <(python3 -c 'import json,sys
for c in json.load(open(sys.argv[1]))["cases"]: print(c["base"]); print(c["head"])' "$HERE/cases.json" | sort -u)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for tag in "${tags[@]}"; do
  tree="$work/${tag#up/}"
  mkdir -p "$tree" && git -C "$REPLAY" archive "$tag" | tar x -C "$tree"
  commit=$(git -C "$REPLAY" log -1 --format=%b "$tag" | sed -n 's/^upstream: //p')
  # upstream.json's blobs after that commit, in lines_changed.py's format.
  python3 - "$HERE/upstream.json" "${tag#up/}" > "$tree/upstream.json" <<'PY'
import json, sys
u, short = json.load(open(sys.argv[1])), sys.argv[2]
state, commit = dict(u["first"]["blobs"]), u["first"]["commit"]
for c in u["commits"]:
    if u["first"]["short"] == short:
        break
    if c["parent"].startswith(short):  # a case's base: the tree before this commit
        commit = c["parent"]
        break
    for path, blob in c["changed"].items():
        if blob is None:
            state.pop(path, None)
        else:
            state[path] = blob
    if c["short"] == short:
        commit = c["commit"]
        break
print(json.dumps({"repository": u["repository"], "commit": commit, "license": u["license"],
                  "files": [{"path": p, "upstream_path": p, "git_blob": b} for p, b in sorted(state.items())]}))
PY
  echo "== $tag"
  python3 "$HERE/../lines_changed.py" "$tree" | grep -v "^$" || status=1
done
exit $status
