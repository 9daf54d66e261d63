#!/bin/bash
# Builds the replay of ggml's history at DEST: a git repository whose first
# commit is bench/ggml/snapshot (ggml's needed files at upstream commit E, see
# upstream.json) with glue/<E>/ (kgate.json and the references, written for
# kgate), then one commit per upstream first-parent commit that touched a
# needed file, in order: patches/NNN-<short>.patch applied as upstream made it,
# plus glue/<short>/ where that commit changed a kernel's signature or launch
# (the manifest and references change in the same commit, as a pull request
# would change them). Each commit is tagged up/<short>, and the commit before
# it also up/<short of its upstream parent>, so a case is
#   kgate gate --repo DEST --base up/<parent> --head up/<commit>
# Authors and dates are upstream's, the committer fixed: the same hashes on
# every machine.
#
#   bench/ggml/make_repo.sh DEST
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DEST=${1:?usage: make_repo.sh DEST}
[ -e "$DEST" ] && { echo "make_repo: $DEST exists; give a new folder" >&2; exit 2; }
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)
cd "$DEST"
git init -q
git checkout -q -b main
export GIT_COMMITTER_NAME="kgate bench" GIT_COMMITTER_EMAIL="bench@kgate.invalid"

# One line per commit, fields apart by 0x1f (tabs would merge empty fields): short, full, patch ('' for the snapshot), parent, author, email, date, subject.
python3 - "$HERE/upstream.json" <<'PY' > "$DEST/.git/kgate-replay"
import json, sys
u = json.load(open(sys.argv[1]))
rows = [dict(u["first"], patch="", parent="")] + u["commits"]
for c in rows:
    print("\x1f".join([c["short"], c["commit"], c["patch"], c["parent"][:8], c["author"], c["email"],
                     c["author_date"], c["subject"]]))
PY

glue() {  # copy glue/<short>/ over the tree, when the commit has one
  if [ -d "$HERE/glue/$1" ]; then cp -r "$HERE/glue/$1/." "$DEST/"; fi
}

previous=""
while IFS=$'\x1f' read -r short full patch parent author email date subject; do
  if [ -z "$patch" ]; then
    # The snapshot, without bench/ggml's own .clang-format (it keeps formatters off the copy).
    (cd "$HERE/snapshot" && tar cf - --exclude=./.clang-format .) | tar xf -
    message="ggml at $short: $subject"$'\n\n'"The needed files of upstream commit $full (bench/ggml/upstream.json), with kgate.json and ref/ written for kgate."
  else
    git apply --whitespace=nowarn "$HERE/patches/$patch"
    message="$subject"$'\n\n'"upstream: $full"
  fi
  glue "$short"
  git add -A
  GIT_AUTHOR_NAME="$author" GIT_AUTHOR_EMAIL="$email" GIT_AUTHOR_DATE="$date" GIT_COMMITTER_DATE="$date" \
    git commit -q --allow-empty -m "$message"
  git tag "up/$short"
  # The case's base: the replayed commit whose tree is the upstream parent's.
  if [ -n "$parent" ] && [ "$parent" != "$previous" ]; then
    git tag "up/$parent" HEAD~1
  fi
  previous=$short
done < "$DEST/.git/kgate-replay"
rm "$DEST/.git/kgate-replay"
echo "make_repo: $(git rev-list --count HEAD) commits, $(git tag | wc -l) tags at $DEST"
