#!/bin/sh
# setup_work.sh WORK: the three library repositories the model episodes run
# on, each a git repository at its newest replayed commit: ggml and candle
# replayed by their make_repo.sh, FlashInfer's norms from examples/.
set -eu
WORK=$(mkdir -p "$1" && cd "$1" && pwd)
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$WORK"
[ -d "$WORK/ggml/.git" ] || bash "$here/bench/ggml/make_repo.sh" "$WORK/ggml" > /dev/null
[ -d "$WORK/candle/.git" ] || bash "$here/bench/candle/make_repo.sh" "$WORK/candle" > /dev/null
if [ ! -d "$WORK/flashinfer/.git" ]; then
  cp -r "$here/examples/flashinfer-norm" "$WORK/flashinfer"
  git -C "$WORK/flashinfer" init -q
  git -C "$WORK/flashinfer" add -A
  git -C "$WORK/flashinfer" -c user.name=kgate -c user.email=kgate@localhost commit -qm "flashinfer-norm"
fi
