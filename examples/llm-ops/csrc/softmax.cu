// Softmax over rows as long as a vocabulary (128256), first version: one
// block per row, three plain passes over the row (max, sum of exponentials,
// write), one element per thread per step, fp32 throughout.
#include <cuda_fp16.h>

#include "block_reduce.cuh"

#ifndef BLOCK  // threads per block, a power of two (tunable)
#define BLOCK 512
#endif
#ifndef UNROLL  // unroll factor of the strided loops (tunable)
#define UNROLL 1
#endif

constexpr int kUnroll = UNROLL;

extern "C" __global__ void softmax(__half* out, const __half* x, int rows, int cols) {
  const long long row = blockIdx.x;
  const __half* in = x + row * cols;
  float m = __int_as_float(0xff800000);  // -inf (NVRTC has no math.h INFINITY)
#pragma unroll kUnroll
  for (int c = threadIdx.x; c < cols; c += BLOCK) m = fmaxf(m, __half2float(in[c]));
  m = block_max<BLOCK>(m);
  float sum = 0.0f;
#pragma unroll kUnroll
  for (int c = threadIdx.x; c < cols; c += BLOCK) sum += expf(__half2float(in[c]) - m);
  sum = block_sum<BLOCK>(sum);
  float inv = 1.0f / sum;
  __half* o = out + row * cols;
#pragma unroll kUnroll
  for (int c = threadIdx.x; c < cols; c += BLOCK)
    o[c] = __float2half(expf(__half2float(in[c]) - m) * inv);
}
