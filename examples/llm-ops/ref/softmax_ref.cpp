// Reference row softmax in double precision.
#include <kgate_host.h>

#include <cmath>
#include <cstdint>

using kgate::half;

void softmax_ref(double* out, const half* x, int32_t rows, int32_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    double max_value = -INFINITY;
    for (int64_t c = 0; c < cols; ++c)
      max_value = std::fmax(max_value, double(float(x[r * cols + c])));
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(double(float(x[r * cols + c])) - max_value);
    for (int64_t c = 0; c < cols; ++c)
      out[r * cols + c] = std::exp(double(float(x[r * cols + c])) - max_value) / sum;
  }
}
