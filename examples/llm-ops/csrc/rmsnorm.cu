// RMSNorm: out[r, c] = x[r, c] / sqrt(mean(x[r, :]^2) + eps) * weight[c]
// One block per row, fp32 accumulation.
//
// With VEC = 1 (the default) this is the first version: each thread strides
// over the row one element at a time (no vector loads), a shared-memory tree
// sums the squares. VEC > 1 selects the tuned version (row_norm below): VEC
// halves per access (8 = one 16-byte load), UNROLL accesses per thread issued
// before any is used, a row that fits in one such chunk kept in registers for
// the second pass, warp-shuffle reductions. Rows whose length or pointers do
// not allow VEC-wide accesses (the odd-* shapes) take the same code with
// scalar accesses.
#include <cuda_fp16.h>

#ifndef BLOCK  // threads per block, a power of two (tunable)
#define BLOCK 256
#endif
#ifndef UNROLL  // unroll factor of the strided loops; accesses in flight per thread (tunable)
#define UNROLL 1
#endif
#ifndef VEC  // halves per access: 1 = the first version, 2/4/8 = the tuned version (tunable)
#define VEC 1
#endif

#include "block_reduce.cuh"
#include "half_vec.cuh"

constexpr int kUnroll = UNROLL;

// The tuned row: chunks of BLOCK * UNROLL accesses of V halves.
template <int V>
__device__ void row_norm(__half* o, const __half* in, const __half* weight, int cols, float eps) {
  const int nvec = cols / V;  // V divides cols (checked by the caller)
  constexpr int kChunk = BLOCK * UNROLL;
  HalfVec<V> cache[UNROLL];
  float sum = 0.0f;
  for (int base = 0; base < nvec; base += kChunk) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {  // all loads first: UNROLL requests in flight
      int i = base + u * BLOCK + threadIdx.x;
      if (i < nvec) cache[u] = load_vec<V>(in + i * V);
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (base + u * BLOCK + threadIdx.x < nvec)
#pragma unroll
        for (int v = 0; v < V; ++v) {
          float f = __half2float(cache[u].h[v]);
          sum += f * f;
        }
  }
  sum = block_sum_shfl<BLOCK>(sum);
  const float scale = rsqrtf(sum / cols + eps);
  const bool cached = nvec <= kChunk;  // the whole row is still in `cache`
  for (int base = 0; base < nvec; base += kChunk) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      int i = base + u * BLOCK + threadIdx.x;
      if (i >= nvec) continue;
      HalfVec<V> xv = cached ? cache[u] : load_vec<V>(in + i * V);
      HalfVec<V> wv = load_vec<V>(weight + i * V);
      HalfVec<V> ov;
#pragma unroll
      for (int v = 0; v < V; ++v)
        ov.h[v] = __float2half(__half2float(xv.h[v]) * scale * __half2float(wv.h[v]));
      store_vec<V>(o + i * V, ov);
    }
  }
}

extern "C" __global__ void TUNED_LAUNCH_BOUNDS rmsnorm(__half* out, const __half* x,
                                                       const __half* weight, int rows, int cols,
                                                       float eps) {
  const long long row = blockIdx.x;
  const __half* in = x + row * cols;
  __half* o = out + row * cols;
  if constexpr (VEC > 1) {
    if (cols % VEC == 0 && is_aligned<VEC>(x) && is_aligned<VEC>(out) && is_aligned<VEC>(weight))
      row_norm<VEC>(o, in, weight, cols, eps);
    else
      row_norm<1>(o, in, weight, cols, eps);
  } else {
    float sum = 0.0f;
#pragma unroll kUnroll
    for (int c = threadIdx.x; c < cols; c += BLOCK) {
      float v = __half2float(in[c]);
      sum += v * v;
    }
    sum = block_sum<BLOCK>(sum);
    float scale = rsqrtf(sum / cols + eps);
#pragma unroll kUnroll
    for (int c = threadIdx.x; c < cols; c += BLOCK)
      o[c] = __float2half(__half2float(in[c]) * scale * __half2float(weight[c]));
  }
}
