// Launch configurations of the example kernels, exactly as ../kgate.json
// declares them (each kernel's cuda "launch"): the single place the workload
// takes its grids and blocks from. Host-only C++ (no CUDA headers), so
// kgate's tests compare every function here with the manifest's launch
// expressions for every tunable combination and shape
// (tests/runner/workload_launch_test.cpp). Change a kernel's launch in
// kgate.json and here together.
//
// Tunables are parameters, in lower case: the kernel sources define them as
// macros (BLOCK, VEC, ...), and the launchers pass those macros in.
#pragma once

namespace launch_dims {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

struct Launch {
  Dim3 grid, block;
  unsigned shared_bytes = 0;
};

constexpr unsigned ceil_div(long long a, long long b) {
  return unsigned((a + b - 1) / b);
}

// "grid": ["rows"], "block": ["BLOCK"]
constexpr Launch rmsnorm(int rows, int block) {
  return {{unsigned(rows)}, {unsigned(block)}};
}

// "grid": ["rows"], "block": ["BLOCK"]
constexpr Launch fused_add_rmsnorm(int rows, int block) {
  return {{unsigned(rows)}, {unsigned(block)}};
}

// "grid": ["tokens"], "block": ["BLOCK"]
constexpr Launch rotary_embedding(int tokens, int block) {
  return {{unsigned(tokens)}, {unsigned(block)}};
}

// "grid": ["ceil_div(d, BLOCK * ELEMS * VEC)", "rows"], "block": ["BLOCK"]
constexpr Launch silu_and_mul(int rows, int d, int block, int elems, int vec) {
  return {{ceil_div(d, (long long)block * elems * vec), unsigned(rows)}, {unsigned(block)}};
}

// "grid": ["ceil_div(n, ROWS)", "ceil_div(batch, BATCH_TILE)"], "block": ["BLOCK"]
constexpr Launch gemv(int batch, int n, int block, int rows, int batch_tile) {
  return {{ceil_div(n, rows), ceil_div(batch, batch_tile)}, {unsigned(block)}};
}

// "grid": ["rows"], "block": ["BLOCK"]
constexpr Launch softmax(int rows, int block) {
  return {{unsigned(rows)}, {unsigned(block)}};
}

}  // namespace launch_dims
