#!/bin/bash
# Runs the CUDA backend's GPU tests and benchmarks on a GPU machine from a
# carried folder (binaries built elsewhere), writing logs to an output folder.
#
#   bench/gpu/run_all.sh CARRIED OUT [STAGE...]
# (bench/gpu/bundle.sh BUILD CARRIED makes CARRIED.) With no STAGE, every stage runs.
# CARRIED holds bin/ (kgate, runner_tests, runner_gpu_tests, bench_cuda,
# stripped), lib/ (shared libraries the GPU machine may lack: libgit2 and its
# dependencies), src/ (examples/ and bench/pytorch_ops.py) and this script.
# The toolkit's libnvrtc.so.13 must be on the machine (CUDA 13).
set -u
D=$(cd "$1" && pwd); OUT=$2
mkdir -p "$OUT"
nvrtc=$(ls /usr/local/cuda/lib64/libnvrtc.so.13 2>/dev/null || find / -name 'libnvrtc.so.13' -not -path '/proc/*' 2>/dev/null | head -1)
cupti=$(ls /usr/local/cuda/lib64/libcupti.so.13 /usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13 2>/dev/null | head -1)
[ -n "$cupti" ] || cupti=$(find / -name 'libcupti.so.13' -not -path '/proc/*' 2>/dev/null | head -1)
nvperf=$(find / -name 'libnvperf_host.so' -not -path '/proc/*' 2>/dev/null | head -1)
export LD_LIBRARY_PATH="$D/lib:$(dirname "${nvrtc:-/usr/local/cuda/lib64/x}"):$(dirname "${cupti:-/x/x}"):$(dirname "${nvperf:-/x/x}"):/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
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
shift 2
stages=("$@")
run_if() { local name=$1; shift; if [ ${#stages[@]} -eq 0 ] || [[ " ${stages[*]} " == *" $name "* ]]; then stage "$name" "$@"; fi; }
export KGATE_STATE_DIR=/tmp/kgate-state
run_if tests 240 bash -c "$D/bin/runner_tests; $D/bin/runner_gpu_tests"
run_if profile_tests 200 "$D/bin/runner_gpu_tests" --gtest_filter='ProfileGpu.*'
run_if kgate_run 150 "$D/bin/kgate" run examples/llm-ops --backend cuda --seed 1 --json "$OUT/kgate_run.json"
run_if bench_cuda 100 "$D/bin/bench_cuda" --manifest examples/llm-ops --json "$OUT/bench_cuda.json"
run_if pytorch 60 python3 "$D/src/bench/pytorch_ops.py" --manifest examples/llm-ops/kgate.json --json "$OUT/pytorch.json"
# The gate's decision rules on recorded H200 timings: A/A gates, then planted slowdowns.
run_if gate_prefill 150 "$D/bin/bench_gate_recorded" examples/llm-ops rmsnorm prefill-2k 100 0.2
run_if gate_decode 120 "$D/bin/bench_gate_recorded" examples/llm-ops rmsnorm decode-b1 60 0.2
# A tuner episode per kernel on the GPU (speedup over the first version, gated).
run_if optimize 100 "$D/bin/kgate" optimize rmsnorm --repo examples/llm-ops --backend cuda --max-iters 4 --new --state-dir /tmp/kgate-episodes
# The main job on the GPU: a sweep of a scratch git copy of the example, its
# accepted results as pull requests on the local forge (needs git on the machine).
run_if sweep 420 bash -c 'set -e; rm -rf /tmp/kgate-sweep; cp -r examples/llm-ops /tmp/kgate-sweep
  cd /tmp/kgate-sweep; git init -q; git checkout -q -b main; git add -A
  git -c user.name=kgate -c user.email=kgate@localhost commit -qm "llm-ops example"
  "$0" sweep --repo . --backend cuda --max-iters 3 --patience 2 --shape-budget-s 0.3 --no-baselines --state-dir /tmp/kgate-sweep-state
  "$0" prs --repo . --state-dir /tmp/kgate-sweep-state; "$0" prs --repo . --state-dir /tmp/kgate-sweep-state --show 1
  git log --format="%h %an %s" -1 kgate/optimize/rmsnorm' "$D/bin/kgate"
run_if profile 60 "$D/bin/kgate" profile rmsnorm --repo examples/llm-ops --backend cuda --shape prefill-8k --json "$OUT/profile.json"
grep -hE "^\[  (PASSED|FAILED|SKIPPED) |tests? ran" "$OUT"/*tests.log 2>/dev/null
