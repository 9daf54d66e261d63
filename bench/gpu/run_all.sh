#!/bin/bash
# Runs the CUDA backend's GPU tests and benchmarks on a GPU machine from a
# carried folder (binaries built elsewhere), writing logs to an output folder.
#
#   bench/gpu/run_all.sh CARRIED OUT [STAGE...]
# (bench/gpu/bundle.sh BUILD CARRIED makes CARRIED.) With no STAGE, every stage runs.
# CARRIED holds bin/ (kgate, runner_tests, runner_gpu_tests, bench_cuda,
# bench_gate_recorded, bench_host_inputs, bench_check_steps, stripped), lib/ (shared libraries the GPU machine may lack: libgit2 and its
# dependencies), src/ (examples/, tests/fixtures/, bench/ scripts and bench/thirdparty/) and this script.
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
# The GPU tests apart from the long ones that have their own stage below.
run_if tests 300 bash -c "$D/bin/gate_gpu_tests; $D/bin/runner_tests; $D/bin/runner_gpu_tests --gtest_filter='-ExampleTunablesGpu.*:ProfileGpu.*:CudaGpuTest.EveryExampleKernelIsCorrectOnEveryShape:ReferenceKernelsGpu.*:FlashinferNormExampleGpu.*'"
# The gate's own GPU tests (each side's launch, memory rules, compute-sanitizer) and the NVRTC compiles.
run_if gate_tests 120 bash -c "$D/bin/gate_gpu_tests; $D/bin/runner_tests --gtest_filter='CudaCompileTest.*'
  ls -l /usr/local/cuda/lib64/libnvrtc*; grep -A3 cuda_nvrtc /usr/local/cuda/version.json
  echo '--- the same NVRTC compiles with the GPU hidden'; KGATE_CACHE_DIR=/tmp/kgate-cache-nogpu CUDA_VISIBLE_DEVICES= $D/bin/runner_tests --gtest_filter='CudaCompileTest.EveryExample*'
  KGATE_CACHE_DIR=/tmp/kgate-cache-check $D/bin/kgate check examples/llm-ops --backend cuda --arch sm_90 --json $OUT/check_sm90.json; head -c 1500 $OUT/check_sm90.json"
# Every tunable value of every CUDA example kernel, correct on the edge shapes and one decode shape.
run_if tunables 300 "$D/bin/runner_gpu_tests" --gtest_filter='ExampleTunablesGpu.*'
run_if profile_tests 400 "$D/bin/runner_gpu_tests" --gtest_filter='ProfileGpu.*'
# What the hot-region sampler sees on this GPU (PC sampling alone, after counters, SASS counts).
run_if pc_diagnostic 120 "$D/bin/runner_gpu_tests" --gtest_filter='ProfileGpu.PcSamplerDiagnostic'
run_if kgate_run 150 "$D/bin/kgate" run examples/llm-ops --backend cuda --seed 1 --json "$OUT/kgate_run.json"
run_if bench_cuda 100 "$D/bin/bench_cuda" --manifest examples/llm-ops --json "$OUT/bench_cuda.json"
run_if pytorch 60 python3 "$D/src/bench/pytorch_ops.py" --manifest examples/llm-ops/kgate.json --json "$OUT/pytorch.json"
# Host work of a check on the largest shape (inputs, references) with this machine's cores.
run_if host_inputs 90 "$D/bin/bench_host_inputs" examples/llm-ops gemv lm-head-b1 2
# Fast checks (issue 15): the reference kernels judge the large shapes and agree with the host
# reference on the small ones; an 8k gate's check and timing (target 1 s); the host side of a
# check per step on the 8k shapes; each step of kgate run on one 8k shape (KGATE_PHASE_TIMES).
# checks: the tests, each 8k gate's steps in OUT/gate_phase_times.txt; check_steps: the host side.
run_if checks 200 bash -c "KGATE_PHASE_TIMES=$OUT/gate_phase_times.txt $D/bin/runner_gpu_tests --gtest_filter='ReferenceKernelsGpu.*'
  cat $OUT/gate_phase_times.txt"
run_if check_steps 300 bash -c "for k in fused_add_rmsnorm rmsnorm silu_and_mul rotary_embedding; do $D/bin/bench_check_steps examples/llm-ops \$k prefill-8k 2; done"
# The example kernels' correctness on every shape (lm-head-b1 is the long one).
run_if examples_correct 300 "$D/bin/runner_gpu_tests" --gtest_filter='CudaGpuTest.EveryExampleKernelIsCorrectOnEveryShape'
# The gate's decision rules on recorded timings: one process, one device context, 40 s of A/A
# rounds per kernel-shape, replayed as >= 100 gates: A/A, planted +2/5/10%, two simple rules.
# Markdown for docs/BENCHMARKS.md in gate_recorded.md; the recordings in gate_recordings/.
run_if gate_recorded 235 "$D/bin/bench_gate_recorded" record examples/llm-ops rmsnorm/prefill-2k fused_add_rmsnorm/prefill-8k rmsnorm/decode-b1 silu_and_mul/decode-b1 --seconds "${GATE_SECONDS:-40}" --save "$OUT/gate_recordings" --markdown "$OUT/gate_recorded.md"
# A tuner episode per kernel on the GPU (speedup over the first version, gated).
run_if optimize 100 "$D/bin/kgate" optimize rmsnorm --repo examples/llm-ops --backend cuda --max-iters 4 --new --state-dir /tmp/kgate-episodes --no-in-model
# A tuner episode on each of the six CUDA example kernels and the table for docs/BENCHMARKS.md
# (OUT/episodes.md; PyTorch eager and the copy ceiling are measured in the same stage).
run_if episodes 600 bash "$D/src/bench/gpu/episodes.sh" "$D/bin/kgate" examples/llm-ops "$OUT"
# The main job on the GPU: a sweep of a scratch git copy of the example, its
# accepted results as pull requests on the local forge (needs git on the machine).
run_if sweep 420 bash -c 'set -e; rm -rf /tmp/kgate-sweep; cp -r examples/llm-ops /tmp/kgate-sweep
  cd /tmp/kgate-sweep; git init -q; git checkout -q -b main; git add -A
  git -c user.name=kgate -c user.email=kgate@localhost commit -qm "llm-ops example"
  "$0" sweep --repo . --backend cuda --max-iters 3 --patience 2 --shape-budget-s 0.3 --no-baselines --state-dir /tmp/kgate-sweep-state
  "$0" prs --repo . --state-dir /tmp/kgate-sweep-state; "$0" prs --repo . --state-dir /tmp/kgate-sweep-state --show 1
  git log --format="%h %an %s" -1 kgate/optimize/rmsnorm' "$D/bin/kgate"
# The README's sweep (scripts/try-example's budgets) with profile-guided plans (--profile on)
# against the tuner without a profile (--profile off), each arm on a fresh scratch git copy
# with its own state: OUT/profile_guided/profile_guided.md, per kernel the final gate's
# geomean speedup per arm, the ratio, and each arm's first moves. Per arm ARM_TIMEOUT_S (140)
# and TOTAL_BUDGET_S (110, the sweep's --total-budget-s); PG_STAGE_S (300) is the stage's limit.
# For the README's budgets alone: PG_STAGE_S=590 ARM_TIMEOUT_S=290 TOTAL_BUDGET_S=250.
run_if profile_guided "${PG_STAGE_S:-300}" bash "$D/src/bench/gpu/profile_guided.sh" "$D/bin/kgate" examples/llm-ops "$OUT"
run_if profile 60 "$D/bin/kgate" profile rmsnorm --repo examples/llm-ops --backend cuda --shape prefill-8k --json "$OUT/profile.json"
# The example workload: extract's task list, then candidates validated in-model
# (needs nvcc and libcublas of the machine's toolkit; see docs/workload.md).
export PATH="/usr/local/cuda/bin:$PATH"
run_if extract 300 "$D/bin/kgate" extract --repo examples/llm-ops --json "$OUT/tasks.json" --trace "$OUT/trace.json" --state-dir /tmp/kgate-workload
# The benchmark-to-deployment gap: the workload with the first versions against the tunables the
# tuner episodes chose (GAP_SETTINGS, "kernel:NAME=V,NAME=V ..."; default: the H200 episodes' best).
GAP_SETTINGS=${GAP_SETTINGS:-"rmsnorm:BLOCK=256,UNROLL=2,VEC=8 softmax:BLOCK=512,UNROLL=1,VEC=8 silu_and_mul:BLOCK=256,ELEMS=1,VEC=8 fused_add_rmsnorm:BLOCK=256,UNROLL=2,VEC=8 rotary_embedding:BLOCK=256,UNROLL=1,VEC=8 gemv:BATCH_TILE=1,BLOCK=256,ROWS=1,UNROLL=1,VEC=8"}
run_if deployment_gap 300 bash "$D/src/bench/gpu/deployment_gap.sh" examples/llm-ops "$OUT" "$GAP_SETTINGS"
# The benchmark-to-deployment gap of a real sweep: extract, `kgate sweep --agent tuner` with
# in-model validation, every accepted proposal together, the workload base vs swept interleaved
# (OUT/sweep_gap.md) and the sweep's episode table (OUT/sweep_episodes.md). 7-8 minutes.
[ -f "$OUT/pytorch.json" ] && export PYTORCH_JSON="$OUT/pytorch.json"
run_if sweep_gap 540 bash "$D/src/bench/gpu/sweep_gap.sh" "$D/bin/kgate" examples/llm-ops "$OUT"
run_if workload_tests 590 "$D/bin/agent_gpu_tests" --gtest_filter='InModelGpu*'
# Kernels nobody on kgate wrote (bench/thirdparty: NVIDIA's CUDA samples reduction and vectorAdd,
# SGEMM_CUDA's kernels 1, 2 and 4), one branch per kind of change, each gated against main:
# OUT/thirdparty/verdicts.md compares each verdict and reason with bench/thirdparty/expected.json.
# Needs git and nvcc. ~5 minutes for the 7 branches before SGEMM_CUDA's 3 came (not timed since).
run_if thirdparty 590 bash -c 'rm -rf /tmp/kgate-thirdparty && bash "$1/src/bench/thirdparty/make_repo.sh" /tmp/kgate-thirdparty > /dev/null && bash "$1/src/bench/thirdparty/run_verdicts.sh" "$1/bin/kgate" /tmp/kgate-thirdparty "$2/thirdparty"' _ "$D" "$OUT"
# The tuner on bench/thirdparty's kernels with no tunables declared (block size, launch bounds,
# register caps, unroll pragmas, cache hints), each episode profiled: OUT/untuned/untuned.md.
# Needs git, nvcc and python3. ITERS moves per kernel (default 8).
run_if untuned 590 bash "$D/src/bench/gpu/untuned.sh" "$D/bin/kgate" "$OUT" "${ITERS:-8}"
# A public templated kernel library ported without changing it (issue 19): FlashInfer's RMSNorm
# kernels (examples/flashinfer-norm). Its GPU tests: every shape through kgate run, every tunable
# value on the edge shapes (~3 minutes).
run_if flashinfer_norm_tests 400 "$D/bin/runner_gpu_tests" --gtest_filter='FlashinferNormExampleGpu.*'
# Then OUT/flashinfer_norm/: the upstream lines changed, kgate run on every shape, a tuner episode
# per kernel (BUDGET s each, default 45) and ported.md, the table for docs/BENCHMARKS.md. Needs
# nvcc and python3. ~7 minutes.
run_if flashinfer_norm 590 bash -c 'BUDGET=${BUDGET:-45} bash "$1/src/bench/gpu/ported_example.sh" "$1/bin/kgate" examples/flashinfer-norm "$2/flashinfer_norm"
  cat "$2/flashinfer_norm/ported.md"' _ "$D" "$OUT"
# A rewrite measured with its own launch, and an episode's profile with counters (issue 17).
run_if launch_tests 300 "$D/bin/agent_gpu_tests" --gtest_filter='CandidateLaunchGpu.*'
# The gate's A/A bias on real gates (two separately compiled copies of every example kernel,
# SEEDS seeds, >= 300 verdicts) and the detection of planted 2% slowdowns on >= 20 us shapes:
# OUT/aa_bias/aa_bias.md. Resumable: run the stage again until the table has both parts
# (about 30 minutes of GPU time in all; PHASES="aa" or "plant table" to split it).
run_if aa_bias 590 bash "$D/src/bench/gpu/aa_bias.sh" "$D/bin/kgate" examples/llm-ops "$OUT/aa_bias"
# Several GPUs of one host (a machine with 2-8 GPUs of one model): A/A gates on GPU 0 idle and
# while `kgate sweep` runs episodes on every other GPU, then the README's sweep and a 16-kernel
# sweep on 1, 2, 4 and 8 GPUs: OUT/multi_gpu/multi_gpu.md. Resumable (PHASES="interference",
# "scaling", "table" to split it over calls); about an hour of machine time on 8 GPUs.
run_if multi_gpu 590 bash "$D/src/bench/gpu/multi_gpu.sh" "$D/bin/kgate" examples/llm-ops "$OUT/multi_gpu"
# Each example kernel's first version, first decode and first prefill shape: one Markdown table
# (docs/BENCHMARKS.md), the summaries' numbers in the JSON, the sampler's log on stderr.
run_if profile_examples 540 bash -c "'$D/bin/kgate' profile --all --repo examples/llm-ops --backend cuda --phases decode,prefill --table --json '$OUT/profile_examples.json' > '$OUT/profile_examples.md' && cat '$OUT/profile_examples.md'"
grep -hE "^\[  (PASSED|FAILED|SKIPPED) |tests? ran" "$OUT"/*tests.log 2>/dev/null
