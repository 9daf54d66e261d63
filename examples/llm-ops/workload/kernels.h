// Launchers for the example kernels of ../csrc, one translation unit each
// (kernel_<name>.cu includes ../csrc/<name>.cu), so a candidate that replaces
// csrc/<name>.cu changes what this workload runs. Each launcher uses the
// launch configuration that ../kgate.json declares for the kernel.
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>

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
