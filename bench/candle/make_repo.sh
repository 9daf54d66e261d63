#!/bin/bash
# Builds the candle replay repository: a git repository at DEST whose history
# is huggingface/candle's own, one commit per upstream commit that touched the
# kernel files kgate gates (upstream.json, in first-parent order). The first
# commit holds snapshot/ (candle's files at the snapshot commit, byte for byte)
# and the licenses; each later one applies patches/NN-<sha>.patch (upstream's
# `git diff C^ C`), and every commit whose glue/<sha>/ exists copies it over
# the tree: kgate.json and ref/, written for kgate, changing with the kernels
# as a pull request would. Each commit is tagged up/<short sha>, so a case is
#   kgate gate --repo DEST --base up/<parent> --head up/<commit>
#
#   bench/candle/make_repo.sh DEST
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DEST=${1:?usage: make_repo.sh DEST}
[ -e "$DEST" ] && { echo "make_repo: $DEST exists; give a new folder" >&2; exit 2; }
mkdir -p "$DEST"
cd "$DEST"
export GIT_AUTHOR_NAME="kgate bench" GIT_AUTHOR_EMAIL="bench@kgate.invalid"
export GIT_COMMITTER_NAME="kgate bench" GIT_COMMITTER_EMAIL="bench@kgate.invalid"
git init -q
git checkout -q -b main
# One line per commit: short sha, full sha, author date, patch (or -), subject.
python3 - "$HERE/upstream.json" <<'PY' > "$DEST/.git/kgate-steps"
import json, sys
for c in json.load(open(sys.argv[1]))["commits"]:
    print("\t".join([c["short"], c["commit"], c["author_date"], c.get("patch", "-"), c["subject"]]))
PY
first=1
while IFS=$'\t' read -r short full date patch subject; do
  if [ "$first" = 1 ]; then
    cp -r "$HERE/snapshot/candle-kernels" .
    cp "$HERE/LICENSE-MIT" "$HERE/LICENSE-APACHE" .
    first=0
  elif [ "$patch" != "-" ]; then
    git apply --whitespace=nowarn "$HERE/$patch"  # upstream's own trailing blanks stay
  fi
  [ -d "$HERE/glue/$short" ] && cp -r "$HERE/glue/$short/." .
  git add -A
  # Upstream's date on both sides: the same commits, hence the same hashes, on every machine.
  GIT_AUTHOR_DATE="$date" GIT_COMMITTER_DATE="$date" \
    git commit -q --allow-empty -m "$subject" -m "upstream: huggingface/candle@$full"
  git tag "up/$short"
done < "$DEST/.git/kgate-steps"
rm "$DEST/.git/kgate-steps"
git tag --list 'up/*' | wc -l | sed 's/$/ upstream commits replayed/'
