#!/bin/bash
# Runs the CUDA backend's GPU tests and benchmarks on a GPU machine from a
# carried folder (binaries built elsewhere), writing logs to an output folder.
#
#   bench/gpu/run_all.sh CARRIED OUT
# CARRIED holds bin/ (kgate, runner_tests, runner_gpu_tests, bench_cuda,
# stripped), lib/ (shared libraries the GPU machine may lack: libgit2 and its
# dependencies), src/ (examples/ and bench/pytorch_ops.py) and this script.
# The toolkit's libnvrtc.so.13 must be on the machine (CUDA 13).
set -u
D=$(cd "$1" && pwd); OUT=$2
mkdir -p "$OUT"
nvrtc=$(ls /usr/local/cuda/lib64/libnvrtc.so.13 2>/dev/null || find / -name 'libnvrtc.so.13' -not -path '/proc/*' 2>/dev/null | head -1)
export LD_LIBRARY_PATH="$D/lib:$(dirname "${nvrtc:-/usr/local/cuda/lib64/x}"):/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export KGATE_TEST_SOURCE_DIR="$D/src" KGATE_TEST_BINARY="$D/bin/kgate" KGATE_CACHE_DIR=/tmp/kgate-cache
export PYTHONUNBUFFERED=1
cd "$D/src"
{
  date -u; nvidia-smi; nvidia-smi -q -d CLOCK | head -40; echo "nvrtc: $nvrtc"; c++ --version | head -1
} > "$OUT/machine.txt" 2>&1
stage() {  # stage NAME SECONDS COMMAND...: one log per stage, a time limit each
  local name=$1 limit=$2; shift 2
  echo "=== $name" >&2
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  echo "=== $name exit $?" >> "$OUT/$name.log"
  tail -4 "$OUT/$name.log" >&2
}
stage tests 260 bash -c "$D/bin/runner_tests; $D/bin/runner_gpu_tests"
stage kgate_run 150 "$D/bin/kgate" run examples/llm-ops --backend cuda --seed 1 --json "$OUT/kgate_run.json"
stage bench_cuda 100 "$D/bin/bench_cuda" --manifest examples/llm-ops --json "$OUT/bench_cuda.json"
stage pytorch 60 python3 "$D/src/bench/pytorch_ops.py" --manifest examples/llm-ops/kgate.json --json "$OUT/pytorch.json"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests? ran" "$OUT/tests.log"
tail -n 60 "$OUT/bench_cuda.log"
