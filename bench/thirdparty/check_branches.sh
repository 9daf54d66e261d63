#!/bin/bash
# Compiles every branch of the repository make_repo.sh built with `kgate check`
# (no GPU needed): each branch's kernels for ARCHS (default sm_80,sm_90), the
# references too. Prints one line per branch; exit 1 when any branch fails.
#
#   bench/thirdparty/check_branches.sh KGATE DEST
set -u
KGATE=${1:?usage: check_branches.sh KGATE DEST}
DEST=${2:?usage: check_branches.sh KGATE DEST}
ARCHS=${ARCHS:-sm_80,sm_90}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
for branch in $(git -C "$DEST" branch --format='%(refname:short)'); do
  mkdir -p "$work/$branch"
  git -C "$DEST" archive "$branch" | tar -x -C "$work/$branch"
  if out=$("$KGATE" check "$work/$branch" --arch "$ARCHS" 2>/dev/null); then
    echo "$branch: $(echo "$out" | tail -1)"
  else
    failed=1
    echo "$branch: FAILED"
    echo "$out" | sed 's/^/    /'
  fi
done
exit $failed
