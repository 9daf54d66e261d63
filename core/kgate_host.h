#pragma once
// The header host kernels include (`#include <kgate_host.h>`): 16-bit float
// types for C++ on the CPU. kgate itself uses the same conversions, so a
// kernel and the checker agree on every bit. Standalone: no kgate headers.
#include <cmath>
#include <cstdint>
#include <cstring>

namespace kgate {

inline uint16_t float_to_half_bits(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u)
    return static_cast<uint16_t>(sign | (abs > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to infinity
  if (abs < 0x38800000u) {  // a half subnormal or zero: scale so its step (2^-24) is 1
    float f;
    std::memcpy(&f, &abs, 4);
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(f * 16777216.0f)));
  }
  uint32_t out = (((abs >> 23) - 112) << 10) | ((abs >> 13) & 0x3ffu);
  uint32_t rest = abs & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (out & 1u))) ++out;  // round to nearest even
  return static_cast<uint16_t>(sign | out);
}

inline float half_bits_to_float(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exp = (bits >> 10) & 0x1fu;
  uint32_t mant = bits & 0x3ffu;
  if (exp == 0) {
    float r = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -r : r;
  }
  uint32_t x =
      exp == 31 ? (sign | 0x7f800000u | (mant << 13)) : (sign | ((exp + 112) << 23) | (mant << 13));
  float result;
  std::memcpy(&result, &x, 4);
  return result;
}

inline uint16_t float_to_bfloat16_bits(float value) {
  uint32_t x;
  std::memcpy(&x, &value, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

inline float bfloat16_bits_to_float(uint16_t bits) {
  uint32_t x = static_cast<uint32_t>(bits) << 16;
  float result;
  std::memcpy(&result, &x, 4);
  return result;
}

// IEEE binary16. Arithmetic happens in float, as on the GPU without fp16 math.
struct half {
  uint16_t bits;
  half() = default;
  half(float f) : bits(float_to_half_bits(f)) {}
  operator float() const { return half_bits_to_float(bits); }
};

// bfloat16: the top 16 bits of a float, rounded to nearest even.
struct bfloat16 {
  uint16_t bits;
  bfloat16() = default;
  bfloat16(float f) : bits(float_to_bfloat16_bits(f)) {}
  operator float() const { return bfloat16_bits_to_float(bits); }
};

}  // namespace kgate
