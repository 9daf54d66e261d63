// Block-wide sum and max through shared memory, written plainly: a tree over
// kThreads slots (kThreads a power of two, the block size). Every thread of
// the block must call it; every thread gets the result.
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
