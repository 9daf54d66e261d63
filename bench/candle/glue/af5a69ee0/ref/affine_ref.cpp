// Reference affine map in double, with the parameter list of candle's
// AFFINE_OP (candle-kernels/src/affine.cu): out[i] = x * mul + add.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "strided.h"

void affine_f32_ref(size_t numel, size_t num_dims, const size_t* info, const float* inp,
                    double* out, float mul, float add) {
  const size_t* strides = info ? info + num_dims : nullptr;
  for (size_t i = 0; i < numel; ++i)
    out[i] = double(inp[strided_offset(i, num_dims, info, strides)]) * mul + add;
}

namespace {

// fp8 e4m3 as cuda_fp8.h defines it: bias 7, no infinities, 0x7f and 0xff NaN.
double e4m3_value(uint8_t b) {
  const int e = (b >> 3) & 15, m = b & 7;
  if (e == 15 && m == 7) return NAN;
  const double mag = e == 0 ? std::ldexp(m / 8.0, -6) : std::ldexp(1 + m / 8.0, e - 7);
  return (b & 0x80) ? -mag : mag;
}

// __nv_fp8_e4m3(float): to nearest, ties to even, saturating at 448, NaN to 0x7f.
uint8_t e4m3_of(float f) {
  if (std::isnan(f)) return 0x7f;
  const uint8_t sign = std::signbit(f) ? 0x80 : 0;
  const double a = std::fabs(double(f));
  if (a == 0) return sign;
  if (a >= 448) return sign | 0x7e;
  int e;
  std::frexp(a, &e);                    // a = m * 2^e, m in [0.5, 1)
  const int exp = std::max(e - 1, -6);  // the binade's exponent; subnormals share -6's step
  const double step = std::ldexp(1.0, exp - 3), q = a / step;  // 8 steps per binade
  double n = std::floor(q);
  if (q - n > 0.5 || (q - n == 0.5 && std::fmod(n, 2) != 0)) n += 1;
  // n steps of 2^(exp - 3): a normal's 8 + mantissa, or a subnormal's mantissa
  int code = exp == -6 && n < 8 ? int(n) : ((exp + 7) << 3) + int(n) - 8;
  return sign | uint8_t(std::min(code, 0x7e));
}

}  // namespace

// out = e4m3(float(x) * float(mul) + float(add)), as AFFINE_OP's fp8 instance
// computes it (one fused multiply-add in float, rounded once); the result's
// byte, as a number.
void affine_f8_e4m3_ref(size_t numel, size_t num_dims, const size_t* info, const uint8_t* inp,
                        double* out, uint8_t mul, uint8_t add) {
  const size_t* strides = info ? info + num_dims : nullptr;
  for (size_t i = 0; i < numel; ++i) {
    const float x = float(e4m3_value(inp[strided_offset(i, num_dims, info, strides)]));
    out[i] = e4m3_of(std::fma(x, float(e4m3_value(mul)), float(e4m3_value(add))));
  }
}
