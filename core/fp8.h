#pragma once
// The two 8-bit float formats of FP8 kernels (OCP's, as CUDA's cuda_fp8.h
// implements them): E4M3 (bias 7, no infinity, 0x7f NaN, largest 448) and
// E5M2 (bias 15, with infinities, largest 57344). Converted to with
// round-to-nearest-even and saturation to the largest finite value, as
// __nv_fp8_e4m3(float) and __nv_fp8_e5m2(float) do (__NV_SATFINITE).
// Standalone: no kgate headers.
#include <cmath>
#include <cstdint>

namespace kgate::fp8 {

struct Format {
  int exponent_bits, mantissa_bits, bias;
  uint8_t largest;  // the bits of the largest finite value, sign clear
};
inline constexpr Format kE4M3{4, 3, 7, 0x7e};
inline constexpr Format kE5M2{5, 2, 15, 0x7b};

inline double to_double(uint8_t bits, const Format& f) {
  const bool negative = bits & 0x80;
  const int exponent = (bits >> f.mantissa_bits) & ((1 << f.exponent_bits) - 1);
  const int mantissa = bits & ((1 << f.mantissa_bits) - 1);
  const int top = (1 << f.exponent_bits) - 1;
  double value;
  if (f.exponent_bits == 4 && exponent == top && mantissa == (1 << f.mantissa_bits) - 1) {
    value = NAN;
  } else if (f.exponent_bits == 5 && exponent == top) {
    value = mantissa == 0 ? INFINITY : NAN;
  } else if (exponent == 0) {
    value = std::ldexp(static_cast<double>(mantissa), 1 - f.bias - f.mantissa_bits);
  } else {
    value = std::ldexp(1.0 + std::ldexp(static_cast<double>(mantissa), -f.mantissa_bits),
                       exponent - f.bias);
  }
  return negative ? -value : value;
}

inline uint8_t from_double(double v, const Format& f) {
  const uint8_t sign = std::signbit(v) ? 0x80 : 0x00;
  if (std::isnan(v)) return 0x7f;
  const double a = std::fabs(v);
  const double largest = to_double(f.largest, f);
  if (a >= largest) return sign | f.largest;  // saturated, infinities too
  const int min_exponent = 1 - f.bias;
  int exponent = a > 0 ? std::ilogb(a) : min_exponent;
  if (exponent < min_exponent) exponent = min_exponent;  // a subnormal's quantum
  const double quantum = std::ldexp(1.0, exponent - f.mantissa_bits);
  double q = std::nearbyint(a / quantum);  // to nearest, ties to even
  int field = exponent + f.bias;
  if (a < std::ldexp(1.0, min_exponent)) {  // subnormal: q counts quanta from 0
    if (q >= (1 << f.mantissa_bits)) return sign | static_cast<uint8_t>(1 << f.mantissa_bits);
    return sign | static_cast<uint8_t>(q);
  }
  if (q >= 2 * (1 << f.mantissa_bits)) {  // rounded up into the next binade
    q /= 2;
    ++field;
  }
  const uint8_t bits = static_cast<uint8_t>((field << f.mantissa_bits) |
                                            (static_cast<int>(q) - (1 << f.mantissa_bits)));
  return (bits & 0x7f) > f.largest ? sign | f.largest : sign | bits;
}

}  // namespace kgate::fp8
