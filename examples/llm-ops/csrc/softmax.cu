// Softmax over rows as long as a vocabulary (128256), one block per row,
// fp32 throughout.
//
// With VEC = 1 (the default) this is the first version: three plain passes
// over the row (max, sum of exponentials, write), one element per thread per
// step, shared-memory trees. VEC > 1 selects the tuned version (row_softmax
// below): two passes instead of three (an online max and sum, rescaling the
// sum when the max grows), VEC halves per access, UNROLL accesses per thread
// in flight, warp-shuffle reductions; a row that fits in one chunk stays in
// registers, a longer one is re-read from the end backwards, so the part read
// last by the first pass (most likely still in L2) is read first. Rows that do
// not allow VEC-wide accesses (odd-*) take the same code with scalar accesses.
#include <cuda_fp16.h>

#ifndef BLOCK  // threads per block, a power of two (tunable)
#define BLOCK 512
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
__device__ void row_softmax(__half* o, const __half* in, int cols) {
  const float kMinusInf = __int_as_float(0xff800000);
  const int nvec = cols / V;  // V divides cols (checked by the caller)
  constexpr int kChunk = BLOCK * UNROLL;
  HalfVec<V> cache[UNROLL];
  // This thread's running max m and sum s of exp(x - m).
  float m = kMinusInf, s = 0.0f;
  for (int base = 0; base < nvec; base += kChunk) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {  // all loads first: UNROLL requests in flight
      int i = base + u * BLOCK + threadIdx.x;
      if (i < nvec) cache[u] = load_vec<V>(in + i * V);
    }
    float chunk_max = kMinusInf;
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (base + u * BLOCK + threadIdx.x < nvec)
#pragma unroll
        for (int v = 0; v < V; ++v) chunk_max = fmaxf(chunk_max, __half2float(cache[u].h[v]));
    if (chunk_max > m) {  // one rescale per chunk, not per element
      s *= expf(m - chunk_max);
      m = chunk_max;
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      if (base + u * BLOCK + threadIdx.x < nvec)
#pragma unroll
        for (int v = 0; v < V; ++v) s += expf(__half2float(cache[u].h[v]) - m);
  }
  const float row_max = block_max_shfl<BLOCK>(m);
  // A thread that saw no element has m = -inf and s = 0: it adds 0.
  const float row_sum = block_sum_shfl<BLOCK>(s == 0.0f ? 0.0f : s * expf(m - row_max));
  const float inv = 1.0f / row_sum;
  const bool cached = nvec <= kChunk;  // the whole row is still in `cache`
  const int last = nvec == 0 ? 0 : (nvec - 1) / kChunk * kChunk;
  for (int base = last; base >= 0; base -= kChunk) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      int i = base + u * BLOCK + threadIdx.x;
      if (i < nvec && !cached) cache[u] = load_vec<V>(in + i * V);
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      int i = base + u * BLOCK + threadIdx.x;
      if (i >= nvec) continue;
      HalfVec<V> ov;
#pragma unroll
      for (int v = 0; v < V; ++v)
        ov.h[v] = __float2half(expf(__half2float(cache[u].h[v]) - row_max) * inv);
      store_vec<V>(o + i * V, ov);
    }
  }
}

extern "C" __global__ void TUNED_LAUNCH_BOUNDS softmax(__half* out, const __half* x, int rows,
                                                       int cols) {
  const long long row = blockIdx.x;
  const __half* in = x + row * cols;
  __half* o = out + row * cols;
  if constexpr (VEC > 1) {
    if (cols % VEC == 0 && is_aligned<VEC>(x) && is_aligned<VEC>(out))
      row_softmax<VEC>(o, in, cols);
    else
      row_softmax<1>(o, in, cols);
  } else {
    float m = __int_as_float(0xff800000);  // -inf (NVRTC has no math.h INFINITY)
#pragma unroll kUnroll
    for (int c = threadIdx.x; c < cols; c += BLOCK) m = fmaxf(m, __half2float(in[c]));
    m = block_max<BLOCK>(m);
    float sum = 0.0f;
#pragma unroll kUnroll
    for (int c = threadIdx.x; c < cols; c += BLOCK) sum += expf(__half2float(in[c]) - m);
    sum = block_sum<BLOCK>(sum);
    float inv = 1.0f / sum;
#pragma unroll kUnroll
    for (int c = threadIdx.x; c < cols; c += BLOCK)
      o[c] = __float2half(expf(__half2float(in[c]) - m) * inv);
  }
}
