// Block-wide sum and max, every thread of the block must call them and every
// thread gets the result.
//   block_sum / block_max: the first versions' plain tree over kThreads
//   shared slots (kThreads a power of two, the block size), log2(kThreads)
//   barriers.
//   block_sum_shfl / block_max_shfl: what the tuned versions use: a reduction
//   in registers within each warp (shuffles), then one barrier and a warp over
//   the per-warp partials (kThreads a multiple of 32, at most 1024).
#pragma once

template <int kThreads>
__device__ float block_sum(float v) {
  __shared__ float slots[kThreads];
  slots[threadIdx.x] = v;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) slots[threadIdx.x] += slots[threadIdx.x + stride];
    __syncthreads();
  }
  float total = slots[0];
  __syncthreads();  // the slots are reused by the next call
  return total;
}

template <int kThreads>
__device__ float block_max(float v) {
  __shared__ float slots[kThreads];
  slots[threadIdx.x] = v;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride)
      slots[threadIdx.x] = fmaxf(slots[threadIdx.x], slots[threadIdx.x + stride]);
    __syncthreads();
  }
  float best = slots[0];
  __syncthreads();
  return best;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2)
    v += __shfl_xor_sync(0xffffffffu, v, lane_mask);
  return v;
}

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int lane_mask = 16; lane_mask > 0; lane_mask /= 2)
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, lane_mask));
  return v;
}

template <int kThreads>
__device__ float block_sum_shfl(float v) {
  static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps, at most 1024 threads");
  constexpr int kWarps = kThreads / 32;
  __shared__ float partial[kWarps];
  v = warp_sum(v);
  if constexpr (kWarps == 1) return v;
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  v = threadIdx.x % 32 < kWarps ? partial[threadIdx.x % 32] : 0.0f;
  v = warp_sum(v);  // every warp reduces the partials, so every thread has the total
  __syncthreads();  // the partials are reused by the next call
  return v;
}

template <int kThreads>
__device__ float block_max_shfl(float v) {
  static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps, at most 1024 threads");
  constexpr int kWarps = kThreads / 32;
  __shared__ float partial[kWarps];
  v = warp_max(v);
  if constexpr (kWarps == 1) return v;
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  v = threadIdx.x % 32 < kWarps ? partial[threadIdx.x % 32] : __int_as_float(0xff800000);
  v = warp_max(v);
  __syncthreads();
  return v;
}
