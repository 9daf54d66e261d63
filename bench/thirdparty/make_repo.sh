#!/bin/bash
# Builds the third-party kernel repository: a git repository at DEST whose
# `main` holds bench/thirdparty/repo (NVIDIA's CUDA samples kernels and
# siboehm/SGEMM_CUDA's, kgate.json, host references) and one branch per kind
# of change, each one commit on main made from
# bench/thirdparty/branches/<branch>.patch, with the message that expected.json
# gives it.
#
#   bench/thirdparty/make_repo.sh DEST
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DEST=${1:?usage: make_repo.sh DEST}
[ -e "$DEST" ] && { echo "make_repo: $DEST exists; give a new folder" >&2; exit 2; }
mkdir -p "$DEST"
cp -r "$HERE/repo/." "$DEST/"
cd "$DEST"
export GIT_AUTHOR_NAME="kgate bench" GIT_AUTHOR_EMAIL="bench@kgate.invalid"
export GIT_COMMITTER_NAME="kgate bench" GIT_COMMITTER_EMAIL="bench@kgate.invalid"
# Fixed dates: the same commits, hence the same hashes, on every machine.
export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"
git init -q
git checkout -q -b main
git add -A
git commit -qm "cuda-samples and SGEMM_CUDA kernels with kgate.json"
python3 - "$HERE/expected.json" <<'PY' > "$DEST/.git/kgate-branches"
import json, sys
for b in json.load(open(sys.argv[1]))["branches"]:
    print(b["branch"] + "\t" + b["message"])
PY
while IFS=$'\t' read -r branch message; do
  git checkout -q -b "$branch" main
  git apply "$HERE/branches/$branch.patch"
  git add -A
  git commit -qm "$message"
done < "$DEST/.git/kgate-branches"
rm "$DEST/.git/kgate-branches"
git checkout -q main
git branch --format='%(refname:short)'
