// SiLU-and-multiply (the gated MLP activation), first version: one thread per
// output element (ELEMS elements per thread, strided by the block), fp32 math.
// out[r, i] = silu(input[r, i]) * input[r, d + i],  silu(v) = v / (1 + exp(-v))
#include <cuda_fp16.h>

#ifndef BLOCK  // threads per block (tunable)
#define BLOCK 256
#endif
#ifndef ELEMS  // elements per thread (tunable); the grid is ceil(d / (BLOCK * ELEMS))
#define ELEMS 1
#endif

extern "C" __global__ void silu_and_mul(__half* out, const __half* input, int rows, int d) {
  const long long row = blockIdx.y;
  const __half* gate = input + row * 2 * d;
  const __half* up = gate + d;
#pragma unroll
  for (int e = 0; e < ELEMS; ++e) {
    int i = (blockIdx.x * ELEMS + e) * BLOCK + threadIdx.x;
    if (i < d) {
      float g = __half2float(gate[i]);
      out[row * d + i] = __float2half(g / (1.0f + expf(-g)) * __half2float(up[i]));
    }
  }
}
