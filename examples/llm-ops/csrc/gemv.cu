// Decode GEMV (a linear layer at batch 1-64): y[b, n] = sum_k x[b, k] * w[n, k]
// with w row-major [N, K] as in nn.Linear. First version: one block per
// (output, batch row), threads stride over K one element at a time, fp32
// accumulation, a shared-memory tree to finish.
#include <cuda_fp16.h>

#include "block_reduce.cuh"

#ifndef BLOCK  // threads per block, a power of two (tunable)
#define BLOCK 256
#endif
#ifndef UNROLL  // unroll factor of the K loop (tunable)
#define UNROLL 1
#endif

constexpr int kUnroll = UNROLL;

extern "C" __global__ void gemv(__half* y, const __half* x, const __half* w, int batch, int n,
                                int k) {
  const long long col = blockIdx.x, b = blockIdx.y;
  const __half* xr = x + b * k;
  const __half* wr = w + col * k;
  float sum = 0.0f;
#pragma unroll kUnroll
  for (int i = threadIdx.x; i < k; i += BLOCK) sum += __half2float(xr[i]) * __half2float(wr[i]);
  sum = block_sum<BLOCK>(sum);
  if (threadIdx.x == 0) y[b * n + col] = __float2half(sum);
}
