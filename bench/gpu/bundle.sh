#!/bin/bash
# Gathers what bench/gpu/run_all.sh needs on a GPU machine that has the CUDA
# toolkit and driver but none of kgate's other libraries:
#   bench/gpu/bundle.sh BUILD DEST
# DEST/bin: stripped kgate, test and bench binaries; DEST/lib: their shared
# libraries except glibc's and CUDA's; DEST/src: examples/, tests/fixtures/
# (the carried tests read them through KGATE_TEST_SOURCE_DIR) and bench/
# scripts, bench/thirdparty/, bench/ggml/ and bench/candle/ included
# (examples/flashinfer-norm is the ported library of bench/gpu/ported_example.sh);
# DEST/ggml and DEST/candle: the independent harnesses of bench/ggml/run_gpu.sh and
# bench/candle/run_gpu.sh with their cubins, built here.
set -euo pipefail
BUILD=$1 DEST=$2
rm -rf "$DEST" && mkdir -p "$DEST/bin" "$DEST/lib" "$DEST/src"
bins=("$BUILD/kgate" "$BUILD/tests/runner_tests" "$BUILD/tests/runner_gpu_tests"
      "$BUILD/tests/agent_gpu_tests" "$BUILD/tests/gate_gpu_tests" "$BUILD/bench/bench_cuda" "$BUILD/bench/bench_gate_recorded"
      "$BUILD/bench/bench_host_inputs" "$BUILD/bench/bench_check_steps")
for b in "${bins[@]}"; do
  [ -x "$b" ] || { echo "bundle: missing $b" >&2; exit 2; }
  cp "$b" "$DEST/bin/" && strip "$DEST/bin/$(basename "$b")"
done
for b in "${bins[@]}"; do ldd "$b"; done | awk '/=>/ {print $3}' | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|libstdc++*|libgcc_s*) ;;
    libcuda.so*|libnvrtc*|libcupti*|libnvperf*|libcudart*|libcublas*) ;;  # the GPU machine's toolkit has these
    *) cp -L "$lib" "$DEST/lib/" ;;
  esac
done
# kgate extract injects the launch tracer it finds next to the executable.
cp "$BUILD/libkgate_trace.so" "$DEST/bin/" && strip "$DEST/bin/libkgate_trace.so"
cp -r examples baselines "$DEST/src/"  # the stored baselines beside the examples they are of
rm -rf "$DEST"/src/examples/*/workload/build  # rebuilt there for its GPU
mkdir -p "$DEST/src/tests" && cp -r tests/fixtures "$DEST/src/tests/"
mkdir -p "$DEST/src/bench/gpu" && cp bench/pytorch_ops.py bench/episodes_table.py bench/sweep_gap.py bench/set_tunable_defaults.py \
   bench/lines_changed.py bench/ported_table.py bench/profile_guided_table.py bench/flashinfer_norm_lines_changed.sh "$DEST/src/bench/"
cp bench/gpu/episodes.sh bench/gpu/deployment_gap.sh bench/gpu/sweep_gap.sh bench/gpu/tunable_grid.sh \
   bench/gpu/aa_bias.sh bench/gpu/aa_bias.py bench/gpu/untuned.sh bench/gpu/ported_example.sh bench/gpu/profile_guided.sh \
   bench/gpu/multi_gpu.sh bench/gpu/multi_gpu.py "$DEST/src/bench/gpu/"
cp -r bench/thirdparty "$DEST/src/bench/"
cp -r bench/ggml "$DEST/src/bench/"
bash bench/ggml/harness/build.sh "$DEST/ggml" > /dev/null
cp -r bench/candle "$DEST/src/bench/"
bash bench/candle/build_harness.sh "$DEST/candle-build" >&2
mkdir -p "$DEST/candle" && mv "$DEST/candle-build/candle_ab" "$DEST/candle/"
tar -cJf "$DEST/candle/cubins.tar.xz" -C "$DEST/candle-build" cubins && rm -rf "$DEST/candle-build"
cp bench/gpu/run_all.sh "$DEST/"
du -sh "$DEST"
