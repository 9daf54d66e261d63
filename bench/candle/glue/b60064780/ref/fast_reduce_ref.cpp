// Reference reductions, with the parameter list of candle's FAST_OP kernels
// (candle-kernels/src/reduce.cu): output b reduces the elements at row-major
// indices [b * el_to_sum_per_block, (b + 1) * el_to_sum_per_block) of the
// tensor that info describes (candle's launcher puts the reduced dims last).
// argmax gives the index within the last dim (what candle returns), the first
// one on ties.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "strided.h"

namespace {

template <class T, class Pick>
void reduce_blocks(size_t src_numel, size_t n, size_t num_dims, const size_t* info, const T* src,
                   double* dst, Pick better) {
  for (size_t b = 0; b * n < src_numel; ++b) {
    const size_t stop = std::min(src_numel, (b + 1) * n);
    size_t best = b * n;
    for (size_t idx = best; idx < stop; ++idx)
      if (better(src[strided_offset(idx, num_dims, info, info + num_dims)],
                 src[strided_offset(best, num_dims, info, info + num_dims)]))
        best = idx;
    dst[b] = double(src[strided_offset(best, num_dims, info, info + num_dims)]);
  }
}

}  // namespace

void fast_max_u32_ref(size_t src_numel, size_t el_to_sum_per_block, size_t num_dims,
                      const size_t* info, const uint32_t* src, double* dst) {
  reduce_blocks(src_numel, el_to_sum_per_block, num_dims, info, src, dst,
                [](uint32_t a, uint32_t b) { return a > b; });
}

void fast_min_u8_ref(size_t src_numel, size_t el_to_sum_per_block, size_t num_dims,
                     const size_t* info, const uint8_t* src, double* dst) {
  reduce_blocks(src_numel, el_to_sum_per_block, num_dims, info, src, dst,
                [](uint8_t a, uint8_t b) { return a < b; });
}

void fast_argmax_f32_ref(size_t src_numel, size_t el_to_sum_per_block, size_t num_dims,
                         const size_t* info, const float* src, double* dst) {
  const size_t n = el_to_sum_per_block, last = info[num_dims - 1];
  for (size_t b = 0; b * n < src_numel; ++b) {
    const size_t stop = std::min(src_numel, (b + 1) * n);
    size_t best = b * n;
    for (size_t idx = best; idx < stop; ++idx)
      if (src[strided_offset(idx, num_dims, info, info + num_dims)] >
          src[strided_offset(best, num_dims, info, info + num_dims)])
        best = idx;
    dst[b] = double(best % last);
  }
}
