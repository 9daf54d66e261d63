// RMSNorm on the CPU, written plainly: one row at a time, one accumulator.
// out[r, c] = x[r, c] / sqrt(mean(x[r, :]^2) + eps) * weight[c]
#include <kgate_host.h>

#include <cmath>
#include <cstdint>

#ifndef ACCUMULATORS  // independent partial sums per row (tunable)
#define ACCUMULATORS 1
#endif

using kgate::half;

void rmsnorm(half* out, const half* x, const half* weight, int32_t rows, int32_t cols, float eps) {
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
