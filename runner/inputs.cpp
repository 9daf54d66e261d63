#include "runner/inputs.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/dtype_convert.h"
#include "core/parallel.h"

namespace kgate {
namespace {

// SplitMix64: element c of a buffer gets mix(key + (c + 1) * gamma), a
// counter-based draw. Any thread can compute any element, so the bytes do
// not depend on how the buffer is split over threads.
constexpr uint64_t kGamma = 0x9E3779B97F4A7C15ull;

inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

inline uint64_t draw(uint64_t key, uint64_t counter) {
  return mix64(key + (counter + 1) * kGamma);
}

// Uniform in the open interval (0, 1): 53 random bits, centred in their step.
inline double unit_open(uint64_t bits) {
  return ((bits >> 11) + 0.5) * 0x1.0p-53;
}

// The standard normal quantile at p in (0, 1): Acklam's rational
// approximation (relative error below 1.2e-9), one draw per element and no
// trigonometry; the tails (p < 0.02425 or > 0.97575) take a log and a sqrt.
inline double normal_from_unit(double p) {
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
  const double q = std::sqrt(-2 * std::log(p < 0.5 ? p : 1 - p));
  const double x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
                   ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  return p < 0.5 ? x : -x;
}

// Elements per chunk handed to a thread: large enough that starting threads
// costs little beside the work, small buffers stay on the calling thread.
constexpr int64_t kGrain = int64_t{1} << 18;
// Elements computed in double, then stored together (store_range_from_double).
constexpr int64_t kBlock = 512;

}  // namespace

Bytes make_input(const ArgPlan& plan, uint64_t seed, size_t position, int threads) {
  const Arg& arg = *plan.arg;
  Bytes data(plan.bytes);
  unsigned char* out = data.data();
  const uint64_t key = mix64(seed * kGamma + position * 0xBF58476D1CE4E5B9ull + 1);
  const InitSpec& init = arg.init;
  const DType dtype = arg.dtype;
  const int64_t count = plan.count;
  // value(i): element i in double, before its conversion to the type.
  auto fill = [&](auto value) {
    parallel_for(
        count, kGrain,
        [&](int64_t begin, int64_t end) {
          double values[kBlock];
          for (int64_t block = begin; block < end; block += kBlock) {
            const int64_t n = std::min(kBlock, end - block);
            for (int64_t k = 0; k < n; ++k) values[k] = value(block + k);
            store_range_from_double(dtype, values, n, out, block);
          }
        },
        threads);
  };
  switch (init.distribution) {
    case InitSpec::Distribution::kNormal: {
      const double mean = init.mean, stddev = init.stddev;
      if (dtype_is_float(dtype)) {
        fill([&](int64_t i) { return mean + stddev * normal_from_unit(unit_open(draw(key, i))); });
      } else {
        // Integer buffers drawn "normal" stay positive and away from zero.
        fill([&](int64_t i) {
          return std::max(1.0,
                          std::abs(mean + stddev * normal_from_unit(unit_open(draw(key, i)))) * 16);
        });
      }
      break;
    }
    case InitSpec::Distribution::kUniform: {
      const double low = init.low, width = init.high - init.low;
      fill([&](int64_t i) { return low + width * unit_open(draw(key, i)); });
      break;
    }
    case InitSpec::Distribution::kRandInt: {
      const int64_t low = plan.randint_low;
      const uint64_t range = static_cast<uint64_t>(plan.randint_high - plan.randint_low);
      // The high half of bits * range: uniform on [0, range) up to 2^-64 bias.
      auto pick = [&](int64_t i) {
        return low + static_cast<int64_t>(static_cast<uint64_t>(
                         (static_cast<unsigned __int128>(draw(key, i)) * range) >> 64));
      };
      if (dtype == DType::kInt64) {  // beyond 2^53 a double would round it
        parallel_for(
            count, kGrain,
            [&](int64_t begin, int64_t end) {
              for (int64_t i = begin; i < end; ++i) {
                int64_t v = pick(i);
                std::memcpy(out + i * 8, &v, 8);
              }
            },
            threads);
      } else {
        fill([&](int64_t i) { return static_cast<double>(pick(i)); });
      }
      break;
    }
  }
  return data;
}

HostData make_inputs(const LaunchPlan& plan, uint64_t seed, int threads) {
  HostData data(plan.args.size());
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const ArgPlan& a = plan.args[i];
    if (a.arg->is_buffer && a.arg->role != ArgRole::kOutput)
      data[i] = make_input(a, seed, i, threads);
  }
  return data;
}

bool is_poison(const unsigned char* data, size_t element_size, size_t index) {
  const unsigned char* p = data + index * element_size;
  for (size_t i = 0; i < element_size; ++i)
    if (p[i] != kPoisonByte) return false;
  return true;
}

}  // namespace kgate
