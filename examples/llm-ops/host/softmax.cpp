// Row softmax on the CPU, written plainly: three passes (max, sum, write).
// VEC > 1: each row is converted to floats once, in blocks (half_block.h),
// and the exponentials of the sum pass are kept for the write pass.
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

void softmax(half* out, const half* x, int32_t rows, int32_t cols) {
  // Rows shorter than a few blocks gain nothing from converting first.
  if (VEC > 1 && cols >= 8 * VEC) {
    // Kept between calls: allocating per call would cost more than a small shape.
    static thread_local std::vector<float> row;
    if (row.size() < static_cast<size_t>(cols)) row.resize(cols);
    for (int32_t r = 0; r < rows; ++r) {
      half_block::to_floats<VEC>(x + static_cast<int64_t>(r) * cols, row.data(), cols);
      float max_value = -INFINITY;
      for (int32_t c = 0; c < cols; ++c) max_value = std::fmax(max_value, row[c]);
      float partial[ACCUMULATORS] = {};
      int32_t c = 0;
      for (; c + ACCUMULATORS <= cols; c += ACCUMULATORS)
        for (int k = 0; k < ACCUMULATORS; ++k) {
          row[c + k] = std::exp(row[c + k] - max_value);
          partial[k] += row[c + k];
        }
      for (; c < cols; ++c) {
        row[c] = std::exp(row[c] - max_value);
        partial[0] += row[c];
      }
      float sum = 0;
      for (int k = 0; k < ACCUMULATORS; ++k) sum += partial[k];
      float inv = 1.0f / sum;
      for (c = 0; c < cols; ++c) row[c] *= inv;
      half_block::to_halves<VEC>(row.data(), out + static_cast<int64_t>(r) * cols, cols);
    }
    return;
  }
  for (int32_t r = 0; r < rows; ++r) {
    const half* row = x + static_cast<int64_t>(r) * cols;
    half* out_row = out + static_cast<int64_t>(r) * cols;
    float max_value = -INFINITY;
    for (int32_t c = 0; c < cols; ++c) max_value = std::fmax(max_value, float(row[c]));
    float partial[ACCUMULATORS] = {};
    int32_t c = 0;
    for (; c + ACCUMULATORS <= cols; c += ACCUMULATORS)
      for (int k = 0; k < ACCUMULATORS; ++k) partial[k] += std::exp(float(row[c + k]) - max_value);
    for (; c < cols; ++c) partial[0] += std::exp(float(row[c]) - max_value);
    float sum = 0;
    for (int k = 0; k < ACCUMULATORS; ++k) sum += partial[k];
    float inv = 1.0f / sum;
    for (c = 0; c < cols; ++c) out_row[c] = half(std::exp(float(row[c]) - max_value) * inv);
  }
}
