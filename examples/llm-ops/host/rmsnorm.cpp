// RMSNorm on the CPU, written plainly: one row at a time, one accumulator.
// out[r, c] = x[r, c] / sqrt(mean(x[r, :]^2) + eps) * weight[c]
// VEC > 1: each row and the weights are converted to floats once, in blocks
// (half_block.h), instead of element by element in every pass.
#include <kgate_host.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "half_block.h"

#ifndef ACCUMULATORS  // independent partial sums per row (tunable)
#define ACCUMULATORS 1
#endif
#ifndef VEC  // halves converted per step: 1 = one at a time, 8 = blocks (tunable)
#define VEC 1
#endif

using kgate::half;

void rmsnorm(half* out, const half* x, const half* weight, int32_t rows, int32_t cols, float eps) {
  // Rows shorter than a few blocks gain nothing from converting first.
  if (VEC > 1 && cols >= 8 * VEC) {
    // Kept between calls: allocating per call would cost more than a small shape.
    static thread_local std::vector<float> w, row;
    if (w.size() < static_cast<size_t>(cols)) w.resize(cols), row.resize(cols);
    half_block::to_floats<VEC>(weight, w.data(), cols);
    for (int32_t r = 0; r < rows; ++r) {
      half_block::to_floats<VEC>(x + static_cast<int64_t>(r) * cols, row.data(), cols);
      float partial[ACCUMULATORS] = {};
      int32_t c = 0;
      for (; c + ACCUMULATORS <= cols; c += ACCUMULATORS)
        for (int k = 0; k < ACCUMULATORS; ++k) partial[k] += row[c + k] * row[c + k];
      for (; c < cols; ++c) partial[0] += row[c] * row[c];
      float sum = 0;
      for (int k = 0; k < ACCUMULATORS; ++k) sum += partial[k];
      float scale = 1.0f / std::sqrt(sum / cols + eps);
      for (c = 0; c < cols; ++c) row[c] = row[c] * scale * w[c];
      half_block::to_halves<VEC>(row.data(), out + static_cast<int64_t>(r) * cols, cols);
    }
    return;
  }
  for (int32_t r = 0; r < rows; ++r) {
    const half* row = x + static_cast<int64_t>(r) * cols;
    float partial[ACCUMULATORS] = {};
    int32_t c = 0;
    for (; c + ACCUMULATORS <= cols; c += ACCUMULATORS)
      for (int k = 0; k < ACCUMULATORS; ++k) {
        float v = row[c + k];
        partial[k] += v * v;
      }
    for (; c < cols; ++c) {
      float v = row[c];
      partial[0] += v * v;
    }
    float sum = 0;
    for (int k = 0; k < ACCUMULATORS; ++k) sum += partial[k];
    float scale = 1.0f / std::sqrt(sum / cols + eps);
    half* out_row = out + static_cast<int64_t>(r) * cols;
    for (c = 0; c < cols; ++c) out_row[c] = half(float(row[c]) * scale * float(weight[c]));
  }
}
