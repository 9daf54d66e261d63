// SiLU-and-multiply (the gated MLP activation), fp32 math.
// out[r, i] = silu(input[r, i]) * input[r, d + i],  silu(v) = v / (1 + exp(-v))
//
// Each thread makes ELEMS accesses of VEC elements, strided by the block; the
// grid is ceil(d / (BLOCK * ELEMS * VEC)) by rows. With VEC = 1 (the default)
// this is the first version: one element per access, no vector loads. VEC > 1
// moves VEC halves per access (8 = one 16-byte load) and issues all of a
// thread's loads before computing; rows whose length or pointers do not
// allow that (odd-*) take the same code with VEC scalar accesses.
#include <cuda_fp16.h>

#ifndef BLOCK  // threads per block (tunable)
#define BLOCK 256
#endif
#ifndef ELEMS  // accesses per thread (tunable)
#define ELEMS 1
#endif
#ifndef VEC  // elements per access: 1 = the first version, 2/4/8 = vector accesses (tunable)
#define VEC 1
#endif

#include "half_vec.cuh"

__device__ __forceinline__ __half silu_mul(__half g, __half u) {
  float gf = __half2float(g);
  return __float2half(gf / (1.0f + expf(-gf)) * __half2float(u));
}

// The tuned path: access e of this thread covers VEC elements from `first`,
// in pieces of V (V = VEC: one vector access; V = 1: VEC scalar ones).
template <int V>
__device__ void silu_and_mul_vec(__half* out, const __half* gate, const __half* up, int d) {
  HalfVec<V> g[ELEMS][VEC / V], u[ELEMS][VEC / V];
#pragma unroll
  for (int e = 0; e < ELEMS; ++e) {  // all loads first: 2 * ELEMS * VEC / V requests in flight
    int first = ((blockIdx.x * ELEMS + e) * BLOCK + threadIdx.x) * VEC;
#pragma unroll
    for (int p = 0; p < VEC / V; ++p) {
      int i = first + p * V;
      if (i < d) {  // V divides d when V > 1, so the whole piece is in the row
        g[e][p] = load_vec<V>(gate + i);
        u[e][p] = load_vec<V>(up + i);
      }
    }
  }
#pragma unroll
  for (int e = 0; e < ELEMS; ++e) {
    int first = ((blockIdx.x * ELEMS + e) * BLOCK + threadIdx.x) * VEC;
#pragma unroll
    for (int p = 0; p < VEC / V; ++p) {
      int i = first + p * V;
      if (i >= d) continue;
      HalfVec<V> o;
#pragma unroll
      for (int v = 0; v < V; ++v) o.h[v] = silu_mul(g[e][p].h[v], u[e][p].h[v]);
      store_vec<V>(out + i, o);
    }
  }
}

extern "C" __global__ void TUNED_LAUNCH_BOUNDS silu_and_mul(__half* out, const __half* input,
                                                            int rows, int d) {
  const long long row = blockIdx.y;
  const __half* gate = input + row * 2 * d;
  const __half* up = gate + d;
  if constexpr (VEC > 1) {
    if (d % VEC == 0 && is_aligned<VEC>(input) && is_aligned<VEC>(out))
      silu_and_mul_vec<VEC>(out + row * d, gate, up, d);
    else
      silu_and_mul_vec<1>(out + row * d, gate, up, d);
  } else {
#pragma unroll
    for (int e = 0; e < ELEMS; ++e) {
      int i = (blockIdx.x * ELEMS + e) * BLOCK + threadIdx.x;
      if (i < d) {
        float g = __half2float(gate[i]);
        out[row * d + i] = __float2half(g / (1.0f + expf(-g)) * __half2float(up[i]));
      }
    }
  }
}
