#pragma once
// The formula behind every input element kgate draws, written once for both
// places that draw: the host (runner/inputs.cpp, g++) and the GPU
// (runner/cuda/input_draw.cu, nvcc). Element i of a buffer is a pure
// function of (key, i), so any thread anywhere can draw any element and the
// bytes do not depend on how the work is split.
//
// Host and GPU agree bit for bit on uniform and randint draws (integer and
// correctly rounded arithmetic only; the GPU side is compiled with
// -fmad=false so a*b+c is not fused). Normal draws take a log and a sqrt in
// their tails (about 5% of elements), and an "apply" takes cos, sin or exp;
// the GPU's may differ from the C library's in the last bit, so such an
// element can differ by one unit in its last place after rounding to the
// buffer's type. Nothing compares the
// two: a set is drawn in one place (runner/staged_inputs.h says where).
//
// Plain C++ with no kgate headers: nvcc compiles it for the device.
#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define KGATE_HOST_DEVICE __host__ __device__
#else
#define KGATE_HOST_DEVICE
#endif

namespace kgate::input_formula {

// What one buffer's draw needs, as plain values (a kernel parameter).
// distribution: 0 normal, 1 uniform, 2 randint (InitSpec::Distribution).
// dtype: DType's order (float64, float32, float16, bfloat16, int64, int32,
// uint8, int8, int16, uint16, uint32, uint64, bool).
// apply: InitSpec::Apply's order (none, cos, sin, exp, abs), on the drawn
// value before it is stored.
struct DrawSpec {
  uint64_t key = 0;
  int64_t count = 0;
  int32_t distribution = 0;
  int32_t dtype = 1;
  int32_t is_float = 1;
  int32_t apply = 0;
  double a = 0, b = 1;  // normal: mean, stddev; uniform: low, width
  int64_t randint_low = 0;
  uint64_t randint_range = 1;
};

// SplitMix64: element c of a buffer gets mix(key + (c + 1) * gamma).
constexpr uint64_t kGamma = 0x9E3779B97F4A7C15ull;

KGATE_HOST_DEVICE inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The key of buffer `position` (its argument index) under `seed`: buffers of
// one set differ.
KGATE_HOST_DEVICE inline uint64_t buffer_key(uint64_t seed, uint64_t position) {
  return mix64(seed * kGamma + position * 0xBF58476D1CE4E5B9ull + 1);
}

// The key of the buffers that share the draw named `name_hash` (a hash of
// InitSpec::share): all of them draw the same values under `seed`.
KGATE_HOST_DEVICE inline uint64_t shared_key(uint64_t seed, uint64_t name_hash) {
  return mix64(buffer_key(seed, name_hash) ^ 0x5851F42D4C957F2Dull);
}

KGATE_HOST_DEVICE inline uint64_t draw(uint64_t key, uint64_t counter) {
  return mix64(key + (counter + 1) * kGamma);
}

// Uniform in the open interval (0, 1): 53 random bits, centred in their step.
KGATE_HOST_DEVICE inline double unit_open(uint64_t bits) {
  return (static_cast<double>(bits >> 11) + 0.5) * 0x1.0p-53;
}

// The standard normal quantile at p in (0, 1): Acklam's rational
// approximation (relative error below 1.2e-9), one draw per element and no
// trigonometry; the tails (p < 0.02425 or > 0.97575) take a log and a sqrt.
KGATE_HOST_DEVICE inline double normal_from_unit(double p) {
  constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                          1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                          6.680131188771972e+01, -1.328068155288572e+01};
  constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                          -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                          3.754408661907416e+00};
  constexpr double kLow = 0.02425;
  if (p > kLow && p < 1 - kLow) {
    const double q = p - 0.5, r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  const double q = sqrt(-2 * log(p < 0.5 ? p : 1 - p));
  const double x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
                   ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  return p < 0.5 ? x : -x;
}

// Element i of a randint buffer: the high half of bits * range, uniform on
// [low, low + range) up to 2^-64 bias.
KGATE_HOST_DEVICE inline int64_t randint_value(const DrawSpec& s, int64_t i) {
#if defined(__CUDA_ARCH__)
  const uint64_t high = __umul64hi(draw(s.key, i), s.randint_range);
#else
  const uint64_t high = static_cast<uint64_t>(
      (static_cast<unsigned __int128>(draw(s.key, i)) * s.randint_range) >> 64);
#endif
  return s.randint_low + static_cast<int64_t>(high);
}

// Element i in double, before its conversion to the buffer's type (int64
// randint buffers store randint_value directly: beyond 2^53 a double would
// round it).
KGATE_HOST_DEVICE inline double applied(int32_t apply, double v) {
  switch (apply) {
    case 1:
      return cos(v);
    case 2:
      return sin(v);
    case 3:
      return exp(v);
    case 4:
      return fabs(v);
    default:
      return v;
  }
}

KGATE_HOST_DEVICE inline double value(const DrawSpec& s, int64_t i) {
  if (s.distribution == 2) return static_cast<double>(randint_value(s, i));
  const double u = unit_open(draw(s.key, i));
  if (s.distribution == 1) return applied(s.apply, s.a + s.b * u);
  const double z = s.a + s.b * normal_from_unit(u);
  // Integer buffers drawn "normal" stay positive and away from zero.
  if (!s.is_float) return fmax(1.0, fabs(z) * 16);
  return applied(s.apply, z);
}

}  // namespace kgate::input_formula
