// The reference for softmax.cu's soft_max_f32<use_shared, ncols, block, T>
// with ggml's parameter list at 3b145175: (x, mask, sinks, dst,
// soft_max_params p), the struct's fields one by one. sinks (gpt-oss's
// attention sinks, one logit per head) may be NULL. A block per row, the grid
// ne01 x ne02 x ne03; the mask row (i01, i02 % ne12, i03 % ne13) at byte
// strides nb11, nb12, nb13. max_bias is 0 (m0 = m1 = 1, no ALiBi).
#include <cstdint>

#include "ggml_ref.h"

void soft_max_f32_ref(const float* x, const float* mask, const float* sinks, double* dst,
                      int64_t nheads, uint32_t n_head_log2, int64_t ncols, int64_t nrows_x,
                      int64_t nrows_y, int64_t ne00, int64_t ne01, int64_t ne02, int64_t ne03,
                      int64_t nb11, int64_t nb12, int64_t nb13, int64_t ne12, int64_t ne13,
                      float scale, float max_bias, float m0, float m1) {
  (void)nheads, (void)n_head_log2, (void)nrows_x, (void)nrows_y, (void)ne00;
  (void)max_bias, (void)m0, (void)m1;
  ggml_ref::soft_max(x, mask, sinks, dst,
                     {ncols, ne01, ne02, ne03, nb11, nb12, nb13, ne12, ne13, scale});
}
