#!/bin/bash
# Lines of FlashInfer's files changed to port examples/flashinfer-norm to kgate
# (issue 19's measure; target 0 in kernel bodies): bench/lines_changed.py on it.
#   bench/flashinfer_norm_lines_changed.sh [--upstream CHECKOUT] [--json OUT]
# CHECKOUT: flashinfer-ai/flashinfer at the commit in examples/flashinfer-norm/upstream.json,
# needed only where the files changed and the originals are not in this repository's history.
HERE=$(cd "$(dirname "$0")" && pwd)
exec python3 "$HERE/lines_changed.py" "$HERE/../examples/flashinfer-norm" "$@"
