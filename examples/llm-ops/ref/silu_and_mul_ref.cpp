// Reference SiLU-gated product in double precision.
#include <kgate_host.h>

#include <cmath>
#include <cstdint>

using kgate::half;

void silu_and_mul_ref(double* out, const half* input, int32_t rows, int32_t d) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < d; ++i) {
      double g = float(input[r * 2 * d + i]);
      double up = float(input[r * 2 * d + d + i]);
      out[r * d + i] = g / (1.0 + std::exp(-g)) * up;
    }
}
