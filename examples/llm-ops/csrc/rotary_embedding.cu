// Rotary position embedding on query and key in place (NeoX style, the whole
// head rotated, as in Llama), one block per token, fp32 math.
//   for pair j < head_dim/2 of each head:  (x1, x2) = (x[j], x[j + head_dim/2])
//   x[j] = x1*cos - x2*sin;  x[j + head_dim/2] = x2*cos + x1*sin
// cos_sin_cache[pos, :] holds head_dim/2 cosines then head_dim/2 sines.
//
// With VEC = 1 (the default) this is the first version: one rotated pair per
// thread per step. VEC > 1 rotates VEC consecutive pairs per step with vector
// accesses (8 = 16-byte loads of x1, x2, cos and sin); heads whose half
// length or pointers do not allow that (odd-*) take the first version's loop.
#include <cuda_fp16.h>

#ifndef BLOCK  // threads per block (tunable)
#define BLOCK 128
#endif
#ifndef UNROLL  // unroll factor of the strided loops (tunable)
#define UNROLL 1
#endif
#ifndef VEC  // pairs per step: 1 = the first version, 2/4/8 = vector accesses (tunable)
#define VEC 1
#endif

#include "half_vec.cuh"

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

// The tuned step: V consecutive pairs per access.
template <int V>
__device__ void rotate_vec(__half* x, const __half* cos_sin, int heads, int head_dim) {
  const int half_dim = head_dim / 2;
  const int steps = half_dim / V;  // V divides half_dim (checked by the caller)
#pragma unroll kUnroll
  for (int i = threadIdx.x; i < heads * steps; i += BLOCK) {
    int head = i / steps, j = i % steps * V;
    __half* h = x + static_cast<long long>(head) * head_dim;
    HalfVec<V> c = load_vec<V>(cos_sin + j), s = load_vec<V>(cos_sin + half_dim + j);
    HalfVec<V> x1 = load_vec<V>(h + j), x2 = load_vec<V>(h + j + half_dim);
    HalfVec<V> y1, y2;
#pragma unroll
    for (int v = 0; v < V; ++v) {
      float cf = __half2float(c.h[v]), sf = __half2float(s.h[v]);
      float a = __half2float(x1.h[v]), b = __half2float(x2.h[v]);
      y1.h[v] = __float2half(a * cf - b * sf);
      y2.h[v] = __float2half(b * cf + a * sf);
    }
    store_vec<V>(h + j, y1);
    store_vec<V>(h + j + half_dim, y2);
  }
}

extern "C" __global__ void TUNED_LAUNCH_BOUNDS rotary_embedding(__half* query, __half* key,
                                                                const int* positions,
                                                                const __half* cos_sin_cache,
                                                                int tokens, int heads, int kv_heads,
                                                                int head_dim) {
  const long long t = blockIdx.x;
  const __half* cos_sin = cos_sin_cache + static_cast<long long>(positions[t]) * head_dim;
  if (VEC > 1 && (head_dim / 2) % VEC == 0 && is_aligned<VEC>(query) && is_aligned<VEC>(key) &&
      is_aligned<VEC>(cos_sin_cache)) {
    rotate_vec<VEC>(query + t * heads * head_dim, cos_sin, heads, head_dim);
    rotate_vec<VEC>(key + t * kv_heads * head_dim, cos_sin, kv_heads, head_dim);
  } else {
    rotate(query + t * heads * head_dim, cos_sin, heads, head_dim);
    rotate(key + t * kv_heads * head_dim, cos_sin, kv_heads, head_dim);
  }
}
