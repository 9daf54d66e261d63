// Reference RMSNorm in double precision; outputs are double (kgate compares in double).
#include <kgate_host.h>

#include <cmath>
#include <cstdint>

using kgate::half;

void rmsnorm_ref(double* out, const half* x, const half* weight, int32_t rows, int32_t cols,
                 float eps) {
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) {
      double v = float(x[r * cols + c]);
      sum += v * v;
    }
    double scale = 1.0 / std::sqrt(sum / cols + double(eps));
    for (int64_t c = 0; c < cols; ++c)
      out[r * cols + c] = double(float(x[r * cols + c])) * scale * double(float(weight[c]));
  }
}
