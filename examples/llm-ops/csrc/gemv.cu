// Decode GEMV (a linear layer at batch 1-64): y[b, n] = sum_k x[b, k] * w[n, k]
// with w row-major [N, K] as in nn.Linear, fp32 accumulation. The grid is
// ceil(n / ROWS) by ceil(batch / BATCH_TILE).
//
// With VEC = ROWS = BATCH_TILE = 1 (the default) this is the first version:
// one block per (output, batch row), threads stride over K one element at a
// time, a shared-memory tree to finish. Otherwise (gemv_tile below) a block
// computes ROWS outputs for BATCH_TILE batch rows: BLOCK / ROWS threads share
// one row of w (ROWS = BLOCK / 32: a warp per row), read it VEC halves per
// access (8 = 16-byte loads) with UNROLL accesses in flight, and use each
// weight load for all BATCH_TILE batch rows (w is read ceil(batch /
// BATCH_TILE) times instead of batch times). Rows of w that do not allow
// VEC-wide accesses (odd-*) take the same code with scalar accesses.
#include <cuda_fp16.h>

#ifndef BLOCK  // threads per block, a power of two (tunable)
#define BLOCK 256
#endif
#ifndef UNROLL  // unroll factor of the K loop; accesses in flight per thread (tunable)
#define UNROLL 1
#endif
#ifndef VEC  // halves per access of w and x (tunable)
#define VEC 1
#endif
#ifndef ROWS  // outputs (rows of w) per block, a power of two (tunable)
#define ROWS 1
#endif
#ifndef BATCH_TILE  // batch rows per block, each weight load used for all (tunable)
#define BATCH_TILE 1
#endif

#define TUNED (VEC > 1 || ROWS > 1 || BATCH_TILE > 1)
// The tuned versions ask for full occupancy (2048 threads per multiprocessor,
// so at most 32 registers a thread). Without it a BATCH_TILE's partial sums
// take registers from every block, batch 1 (which needs every warp's loads in
// flight) runs fewer warps, and down-b1's 2048 blocks need a third wave: on the
// H200 BATCH_TILE=8 made down-b1 6% slower and was never kept. With it, the
// batch-1 shapes run as fast as at BATCH_TILE=1 and up-b8 2.6x faster. Some
// (BATCH_TILE, UNROLL) pairs spill under the cap and lose; the gate rejects them.
#if TUNED
#define TUNED_LAUNCH_BOUNDS __launch_bounds__(BLOCK, 2048 / BLOCK)
#endif
#include "block_reduce.cuh"
#include "half_vec.cuh"

constexpr int kUnroll = UNROLL;
constexpr bool kFirstVersion = !TUNED;
constexpr int kGroup = BLOCK / ROWS;  // threads per row of w
static_assert(BLOCK % ROWS == 0 && kGroup >= 1, "ROWS divides BLOCK");

// Sums v over the kGroup threads of this thread's group for the block's first
// `rows` batch rows (the same for the whole block, so skipping the others
// keeps every shuffle and barrier uniform); the group's first thread gets the
// totals. Every thread of the block must call it.
template <int TILE>
__device__ void group_sums(float (&acc)[TILE], int rows) {
  if constexpr (kGroup <= 32) {  // the group lies within one warp: shuffles only
#pragma unroll
    for (int b = 0; b < TILE; ++b) {
      if (b >= rows) break;
#pragma unroll
      for (int lane_mask = kGroup / 2; lane_mask > 0; lane_mask /= 2)
        acc[b] += __shfl_xor_sync(0xffffffffu, acc[b], lane_mask);
    }
  } else {  // whole warps per group: shuffles, then the group's warps through shared memory
    constexpr int kWarps = kGroup / 32;
    __shared__ float partial[TILE][BLOCK / 32];
#pragma unroll
    for (int b = 0; b < TILE; ++b) {
      if (b >= rows) break;
      float v = warp_sum(acc[b]);
      if (threadIdx.x % 32 == 0) partial[b][threadIdx.x / 32] = v;
    }
    __syncthreads();
    if (threadIdx.x % kGroup == 0) {
      const int first_warp = threadIdx.x / 32;
#pragma unroll
      for (int b = 0; b < TILE; ++b) {
        if (b >= rows) break;
        float total = 0.0f;
        for (int w = 0; w < kWarps; ++w) total += partial[b][first_warp + w];
        acc[b] = total;
      }
    }
  }
}

// ROWS outputs for batch rows b0 .. b0 + rows - 1 (rows <= TILE), V halves per access.
template <int V, int TILE>
__device__ void gemv_tile(__half* y, const __half* x, const __half* w, int b0, int rows, int n,
                          int k) {
  const int lane = threadIdx.x % kGroup;
  const long long col = static_cast<long long>(blockIdx.x) * ROWS + threadIdx.x / kGroup;
  const int nvec = k / V;  // V divides k (checked by the caller)
  float acc[TILE];
#pragma unroll
  for (int b = 0; b < TILE; ++b) acc[b] = 0.0f;
  if (col < n) {  // no early return: group_sums may need every thread at a barrier
    const __half* wr = w + col * k;
    for (int base = lane; base < nvec; base += kGroup * UNROLL) {
      HalfVec<V> wv[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {  // all weight loads first: UNROLL in flight
        int i = base + u * kGroup;
        if (i < nvec) wv[u] = load_vec<V>(wr + static_cast<long long>(i) * V);
      }
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        int i = base + u * kGroup;
        if (i >= nvec) continue;
#pragma unroll
        for (int b = 0; b < TILE; ++b) {
          if (b >= rows) break;
          HalfVec<V> xv = load_vec<V>(x + static_cast<long long>(b0 + b) * k + i * V);
#pragma unroll
          for (int v = 0; v < V; ++v) acc[b] += __half2float(wv[u].h[v]) * __half2float(xv.h[v]);
        }
      }
    }
  }
  group_sums<TILE>(acc, rows);
  if (lane == 0 && col < n)
#pragma unroll
    for (int b = 0; b < TILE; ++b)
      if (b < rows) y[static_cast<long long>(b0 + b) * n + col] = __float2half(acc[b]);
}

// A block with a single batch row (batch 1, or the last row of an odd batch)
// takes the one-row code, so decode at batch 1 runs as fast with a
// BATCH_TILE as without.
template <int V>
__device__ void gemv_rows(__half* y, const __half* x, const __half* w, int batch, int n, int k) {
  const int b0 = blockIdx.y * BATCH_TILE;
  const int rows = min(BATCH_TILE, batch - b0);  // batch rows this block computes
  if (BATCH_TILE > 1 && rows == 1)
    gemv_tile<V, 1>(y, x, w, b0, 1, n, k);
  else
    gemv_tile<V, BATCH_TILE>(y, x, w, b0, rows, n, k);
}

extern "C" __global__ void TUNED_LAUNCH_BOUNDS gemv(__half* y, const __half* x, const __half* w,
                                                    int batch, int n, int k) {
  if constexpr (!kFirstVersion) {
    if (k % VEC == 0 && is_aligned<VEC>(x) && is_aligned<VEC>(w))
      gemv_rows<VEC>(y, x, w, batch, n, k);
    else
      gemv_rows<1>(y, x, w, batch, n, k);
  } else {
    const long long col = blockIdx.x, b = blockIdx.y;
    const __half* xr = x + b * k;
    const __half* wr = w + col * k;
    float sum = 0.0f;
#pragma unroll kUnroll
    for (int i = threadIdx.x; i < k; i += BLOCK) sum += __half2float(xr[i]) * __half2float(wr[i]);
    sum = block_sum<BLOCK>(sum);
    if (threadIdx.x == 0) y[b * n + col] = __float2half(sum);
  }
}
