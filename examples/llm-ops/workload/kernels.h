// Launchers for the example kernels of ../csrc, one translation unit each
// (kernel_<name>.cu includes ../csrc/<name>.cu), so a candidate that replaces
// csrc/<name>.cu changes what this workload runs. Each launcher takes its
// grid and block from launch_dims.h, the manifest's launch expressions in C++.
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "launch_dims.h"

inline dim3 grid_of(const launch_dims::Launch& l) {
  return dim3(l.grid.x, l.grid.y, l.grid.z);
}
inline dim3 block_of(const launch_dims::Launch& l) {
  return dim3(l.block.x, l.block.y, l.block.z);
}

void launch_rmsnorm(__half* out, const __half* x, const __half* weight, int rows, int cols,
                    float eps, cudaStream_t stream);
void launch_fused_add_rmsnorm(__half* input, __half* residual, const __half* weight, int rows,
                              int cols, float eps, cudaStream_t stream);
void launch_rotary_embedding(__half* query, __half* key, const int* positions,
                             const __half* cos_sin_cache, int tokens, int heads, int kv_heads,
                             int head_dim, cudaStream_t stream);
void launch_silu_and_mul(__half* out, const __half* input, int rows, int d, cudaStream_t stream);
void launch_gemv(__half* y, const __half* x, const __half* w, int batch, int n, int k,
                 cudaStream_t stream);
void launch_softmax(__half* out, const __half* x, int rows, int cols, cudaStream_t stream);
