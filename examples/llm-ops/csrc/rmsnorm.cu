// RMSNorm, first version: one block per row, each thread strides over the
// row one element at a time (no vector loads), fp32 accumulation.
// out[r, c] = x[r, c] / sqrt(mean(x[r, :]^2) + eps) * weight[c]
#include <cuda_fp16.h>

#include "block_reduce.cuh"

#ifndef BLOCK  // threads per block, a power of two (tunable)
#define BLOCK 256
#endif
#ifndef UNROLL  // unroll factor of the strided loops (tunable)
#define UNROLL 1
#endif

constexpr int kUnroll = UNROLL;

extern "C" __global__ void rmsnorm(__half* out, const __half* x, const __half* weight, int rows,
                                   int cols, float eps) {
  const long long row = blockIdx.x;
  const __half* in = x + row * cols;
  float sum = 0.0f;
#pragma unroll kUnroll
  for (int c = threadIdx.x; c < cols; c += BLOCK) {
    float v = __half2float(in[c]);
    sum += v * v;
  }
  sum = block_sum<BLOCK>(sum);
  float scale = rsqrtf(sum / cols + eps);
  __half* o = out + row * cols;
#pragma unroll kUnroll
  for (int c = threadIdx.x; c < cols; c += BLOCK)
    o[c] = __float2half(__half2float(in[c]) * scale * __half2float(weight[c]));
}
