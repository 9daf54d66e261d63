// Fused residual add + RMSNorm (vLLM's fused_add_rms_norm), first version:
//   residual[r, c] = input[r, c] + residual[r, c]            (stored in half)
//   input[r, c]    = residual[r, c] / rms(residual[r, :]) * weight[c]
// One block per row, one element per thread per step, fp32 accumulation.
#include <cuda_fp16.h>

#include "block_reduce.cuh"

#ifndef BLOCK  // threads per block, a power of two (tunable)
#define BLOCK 256
#endif
#ifndef UNROLL  // unroll factor of the strided loops (tunable)
#define UNROLL 1
#endif

constexpr int kUnroll = UNROLL;

extern "C" __global__ void fused_add_rmsnorm(__half* input, __half* residual, const __half* weight,
                                             int rows, int cols, float eps) {
  const long long row = blockIdx.x;
  __half* in = input + row * cols;
  __half* res = residual + row * cols;
  float sum = 0.0f;
#pragma unroll kUnroll
  for (int c = threadIdx.x; c < cols; c += BLOCK) {
    __half z = __float2half(__half2float(in[c]) + __half2float(res[c]));
    res[c] = z;
    float v = __half2float(z);
    sum += v * v;
  }
  sum = block_sum<BLOCK>(sum);
  float scale = rsqrtf(sum / cols + eps);
  // Each thread reads back only the residual elements it wrote itself.
#pragma unroll kUnroll
  for (int c = threadIdx.x; c < cols; c += BLOCK)
    in[c] = __float2half(__half2float(res[c]) * scale * __half2float(weight[c]));
}
