// Row softmax on the CPU, written plainly: three passes (max, sum, write).
#include <kgate_host.h>

#include <cmath>
#include <cstdint>

#ifndef ACCUMULATORS  // independent partial sums per row (tunable)
#define ACCUMULATORS 1
#endif

using kgate::half;

void softmax(half* out, const half* x, int32_t rows, int32_t cols) {
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
