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
run_if profile_tests 400 "$D/bin/runner_gpu_tests" --gtest_filter='ProfileGpu.*'
# What the hot-region sampler sees on this GPU (PC sampling alone, after counters, SASS counts).
run_if pc_diagnostic 120 "$D/bin/runner_gpu_tests" --gtest_filter='ProfileGpu.PcSamplerDiagnostic'
run_if kgate_run 150 "$D/bin/kgate" run examples/llm-ops --backend cuda --seed 1 --json "$OUT/kgate_run.json"
run_if bench_cuda 100 "$D/bin/bench_cuda" --manifest examples/llm-ops --json "$OUT/bench_cuda.json"
run_if pytorch 60 python3 "$D/src/bench/pytorch_ops.py" --manifest examples/llm-ops/kgate.json --json "$OUT/pytorch.json"
# The gate's decision rules on recorded H200 timings: A/A gates, then planted slowdowns.
run_if gate_prefill 150 "$D/bin/bench_gate_recorded" examples/llm-ops rmsnorm prefill-2k 100 0.2
run_if gate_decode 120 "$D/bin/bench_gate_recorded" examples/llm-ops rmsnorm decode-b1 60 0.2
# A tuner episode per kernel on the GPU (speedup over the first version, gated).
run_if optimize 100 "$D/bin/kgate" optimize rmsnorm --repo examples/llm-ops --backend cuda --max-iters 4 --new --state-dir /tmp/kgate-episodes
run_if profile 60 "$D/bin/kgate" profile rmsnorm --repo examples/llm-ops --backend cuda --shape prefill-8k --json "$OUT/profile.json"
# Each example kernel's first version, first decode and first prefill shape: one Markdown table
# (docs/BENCHMARKS.md), the summaries' numbers in the JSON, the sampler's log on stderr.
run_if profile_examples 420 bash -c "'$D/bin/kgate' profile --all --repo examples/llm-ops --backend cuda --phases decode,prefill --table --json '$OUT/profile_examples.json' > '$OUT/profile_examples.md' && cat '$OUT/profile_examples.md'"
grep -hE "^\[  (PASSED|FAILED|SKIPPED) |tests? ran" "$OUT"/*tests.log 2>/dev/null
