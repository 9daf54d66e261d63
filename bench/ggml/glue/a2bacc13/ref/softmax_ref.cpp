// The reference for softmax.cu's soft_max_f32<use_shared, ncols, block, T>
// with ggml's parameter list at a2bacc13: (x, mask, dst, ncols_par, nrows_y,
// scale, max_bias, m0, m1, n_head_log2). The kernel runs one block per row of
// x (nrows_x of them, from gridDim) and reads mask row rowx % nrows_y. The
// rows are heads x nrows_y, and the launcher passes n_head_log2 = the largest
// power of two <= heads: kgate.json's shapes have a power-of-two head count,
// so nrows_x = nrows_y * n_head_log2. max_bias is 0 (m0 = m1 = 1, no ALiBi).
#include <cstdint>

#include "ggml_ref.h"

void soft_max_f32_ref(const float* x, const float* mask, double* dst, int32_t ncols_par,
                      int32_t nrows_y, float scale, float max_bias, float m0, float m1,
                      uint32_t n_head_log2) {
  (void)max_bias, (void)m0, (void)m1;
  const int64_t nb11 = int64_t(ncols_par) * sizeof(float);
  ggml_ref::soft_max(
      x, mask, nullptr, dst,
      {ncols_par, nrows_y, n_head_log2, 1, nb11, nb11 * nrows_y, nb11 * nrows_y, 1, 1, scale});
}
