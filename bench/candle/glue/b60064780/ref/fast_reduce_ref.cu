// Reference reductions on the GPU: fast_reduce_ref.cpp, one thread per output
// (each scans its block of el_to_sum_per_block elements in order).
// Launch: grid [ceil_div(rows, 256)], block [256].
#include <stdint.h>

#include "strided.h"

template <class T, class Pick>
__device__ size_t best_index(size_t src_numel, size_t n, size_t num_dims, const size_t* info,
                             const T* src, size_t b, Pick better) {
  const size_t stop = min(src_numel, (b + 1) * n);
  size_t best = b * n;
  for (size_t idx = best; idx < stop; ++idx)
    if (better(src[strided_offset(idx, num_dims, info, info + num_dims)],
               src[strided_offset(best, num_dims, info, info + num_dims)]))
      best = idx;
  return best;
}

__device__ size_t output_index(size_t src_numel, size_t n) {
  const size_t b = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  return b * n < src_numel ? b : ~size_t(0);
}

extern "C" __global__ void fast_max_u32_ref(size_t src_numel, size_t el_to_sum_per_block,
                                            size_t num_dims, const size_t* info,
                                            const uint32_t* src, double* dst) {
  const size_t b = output_index(src_numel, el_to_sum_per_block);
  if (b == ~size_t(0)) return;
  const size_t best = best_index(src_numel, el_to_sum_per_block, num_dims, info, src, b,
                                 [](uint32_t x, uint32_t y) { return x > y; });
  dst[b] = double(src[strided_offset(best, num_dims, info, info + num_dims)]);
}

extern "C" __global__ void fast_min_u8_ref(size_t src_numel, size_t el_to_sum_per_block,
                                           size_t num_dims, const size_t* info, const uint8_t* src,
                                           double* dst) {
  const size_t b = output_index(src_numel, el_to_sum_per_block);
  if (b == ~size_t(0)) return;
  const size_t best = best_index(src_numel, el_to_sum_per_block, num_dims, info, src, b,
                                 [](uint8_t x, uint8_t y) { return x < y; });
  dst[b] = double(src[strided_offset(best, num_dims, info, info + num_dims)]);
}

extern "C" __global__ void fast_argmax_f32_ref(size_t src_numel, size_t el_to_sum_per_block,
                                               size_t num_dims, const size_t* info,
                                               const float* src, double* dst) {
  const size_t b = output_index(src_numel, el_to_sum_per_block);
  if (b == ~size_t(0)) return;
  const size_t best = best_index(src_numel, el_to_sum_per_block, num_dims, info, src, b,
                                 [](float x, float y) { return x > y; });
  dst[b] = double(best % info[num_dims - 1]);
}
