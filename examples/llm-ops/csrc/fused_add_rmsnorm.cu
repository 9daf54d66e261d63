// Fused residual add + RMSNorm (vLLM's fused_add_rms_norm):
//   residual[r, c] = input[r, c] + residual[r, c]            (stored in half)
//   input[r, c]    = residual[r, c] / rms(residual[r, :]) * weight[c]
// One block per row, fp32 accumulation.
//
// With VEC = 1 (the default) this is the first version: one element per
// thread per step, a shared-memory tree for the sum. VEC > 1 selects the
// tuned version (row_add_norm below): VEC halves per access, UNROLL accesses
// per thread in flight, the new residual kept in registers for the second
// pass when the row fits in one chunk, warp-shuffle reductions. Rows that do
// not allow VEC-wide accesses (odd-*) take the same code with scalar accesses.
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
__device__ void row_add_norm(__half* in, __half* res, const __half* weight, int cols, float eps) {
  const int nvec = cols / V;  // V divides cols (checked by the caller)
  constexpr int kChunk = BLOCK * UNROLL;
  HalfVec<V> z[UNROLL];  // the new residual of this thread's accesses in the chunk
  float sum = 0.0f;
  for (int base = 0; base < nvec; base += kChunk) {
    HalfVec<V> a[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {  // all loads first: 2 * UNROLL requests in flight
      int i = base + u * BLOCK + threadIdx.x;
      if (i < nvec) {
        a[u] = load_vec<V>(in + i * V);
        z[u] = load_vec<V>(res + i * V);
      }
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      int i = base + u * BLOCK + threadIdx.x;
      if (i >= nvec) continue;
#pragma unroll
      for (int v = 0; v < V; ++v) {
        z[u].h[v] = __float2half(__half2float(a[u].h[v]) + __half2float(z[u].h[v]));
        float f = __half2float(z[u].h[v]);
        sum += f * f;
      }
      store_vec<V>(res + i * V, z[u]);
    }
  }
  sum = block_sum_shfl<BLOCK>(sum);
  const float scale = rsqrtf(sum / cols + eps);
  const bool cached = nvec <= kChunk;  // the whole row's residual is still in `z`
  for (int base = 0; base < nvec; base += kChunk) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      int i = base + u * BLOCK + threadIdx.x;
      if (i >= nvec) continue;
      // Otherwise each thread reads back only the residual it wrote itself.
      HalfVec<V> rv = cached ? z[u] : load_vec<V>(res + i * V);
      HalfVec<V> wv = load_vec<V>(weight + i * V);
      HalfVec<V> ov;
#pragma unroll
      for (int v = 0; v < V; ++v)
        ov.h[v] = __float2half(__half2float(rv.h[v]) * scale * __half2float(wv.h[v]));
      store_vec<V>(in + i * V, ov);
    }
  }
}

extern "C" __global__ void TUNED_LAUNCH_BOUNDS fused_add_rmsnorm(__half* input, __half* residual,
                                                                 const __half* weight, int rows,
                                                                 int cols, float eps) {
  const long long row = blockIdx.x;
  __half* in = input + row * cols;
  __half* res = residual + row * cols;
  if constexpr (VEC > 1) {
    if (cols % VEC == 0 && is_aligned<VEC>(input) && is_aligned<VEC>(residual) &&
        is_aligned<VEC>(weight))
      row_add_norm<VEC>(in, res, weight, cols, eps);
    else
      row_add_norm<1>(in, res, weight, cols, eps);
  } else {
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
}
