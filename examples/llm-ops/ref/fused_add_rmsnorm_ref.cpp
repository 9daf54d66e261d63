// Reference fused add + RMSNorm in double precision. Both buffers are in/out:
// they arrive holding the inputs (as double) and leave holding the results.
#include <kgate_host.h>

#include <cmath>
#include <cstdint>

using kgate::half;

void fused_add_rmsnorm_ref(double* input, double* residual, const half* weight, int32_t rows,
                           int32_t cols, float eps) {
  for (int64_t r = 0; r < rows; ++r) {
    double* in = input + r * cols;
    double* res = residual + r * cols;
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) {
      res[c] = in[c] + res[c];
      sum += res[c] * res[c];
    }
    double scale = 1.0 / std::sqrt(sum / cols + double(eps));
    for (int64_t c = 0; c < cols; ++c) in[c] = res[c] * scale * double(float(weight[c]));
  }
}
