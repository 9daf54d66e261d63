// Rotary position embedding on query and key in place (NeoX style, the whole
// head rotated, as in Llama), first version: one block per token, one
// rotated pair per thread per step, fp32 math.
//   for pair j < head_dim/2 of each head:  (x1, x2) = (x[j], x[j + head_dim/2])
//   x[j] = x1*cos - x2*sin;  x[j + head_dim/2] = x2*cos + x1*sin
// cos_sin_cache[pos, :] holds head_dim/2 cosines then head_dim/2 sines.
#include <cuda_fp16.h>

#ifndef BLOCK  // threads per block (tunable)
#define BLOCK 128
#endif
#ifndef UNROLL  // unroll factor of the strided loops (tunable)
#define UNROLL 1
#endif

constexpr int kUnroll = UNROLL;

__device__ void rotate(__half* x, const __half* cos_sin, int heads, int head_dim) {
  const int half_dim = head_dim / 2;
#pragma unroll kUnroll
  for (int i = threadIdx.x; i < heads * half_dim; i += BLOCK) {
    int head = i / half_dim, j = i % half_dim;
    __half* h = x + static_cast<long long>(head) * head_dim;
    float c = __half2float(cos_sin[j]), s = __half2float(cos_sin[half_dim + j]);
    float x1 = __half2float(h[j]), x2 = __half2float(h[j + half_dim]);
    h[j] = __float2half(x1 * c - x2 * s);
    h[j + half_dim] = __float2half(x2 * c + x1 * s);
  }
}

extern "C" __global__ void rotary_embedding(__half* query, __half* key, const int* positions,
                                            const __half* cos_sin_cache, int tokens, int heads,
                                            int kv_heads, int head_dim) {
  const long long t = blockIdx.x;
  const __half* cos_sin = cos_sin_cache + static_cast<long long>(positions[t]) * head_dim;
  rotate(query + t * heads * head_dim, cos_sin, heads, head_dim);
  rotate(key + t * kv_heads * head_dim, cos_sin, kv_heads, head_dim);
}
