// What the reference kernels (ref/*.cu) share: 256 threads per block, 16-bit
// floats read as double, and a block-wide sum in double whose order of
// additions is fixed, so a reference gives the same bits on every run.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

constexpr int kRefThreads = 256;  // the "block" of every reference launch in kgate.json

__device__ __forceinline__ double as_double(__half h) {
  return static_cast<double>(__half2float(h));
}
__device__ __forceinline__ double as_double(__nv_bfloat16 h) {
  return static_cast<double>(__bfloat162float(h));
}

// Every thread gets the block's sum.
__device__ __forceinline__ double ref_block_sum(double v) {
  __shared__ double partial[kRefThreads / 32];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  double total = 0;
  for (int w = 0; w < kRefThreads / 32; ++w) total += partial[w];
  __syncthreads();  // partial is reused by the next call
  return total;
}
