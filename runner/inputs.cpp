#include "runner/inputs.h"

#include <cmath>
#include <cstring>
#include <random>

namespace kgate {

std::vector<unsigned char> make_input(const ArgPlan& plan, uint64_t seed, size_t position) {
  const Arg& arg = *plan.arg;
  std::vector<unsigned char> data(plan.bytes);
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + position * 0xBF58476D1CE4E5B9ull + 1);
  const InitSpec& init = arg.init;
  switch (init.distribution) {
    case InitSpec::Distribution::kNormal: {
      std::normal_distribution<double> dist(init.mean, init.stddev);
      for (int64_t i = 0; i < plan.count; ++i) {
        double v = dist(rng);
        if (!dtype_is_float(arg.dtype)) v = std::max(1.0, std::abs(v) * 16);
        store_from_double(arg.dtype, data.data(), i, v);
      }
      break;
    }
    case InitSpec::Distribution::kUniform: {
      std::uniform_real_distribution<double> dist(init.low, init.high);
      for (int64_t i = 0; i < plan.count; ++i)
        store_from_double(arg.dtype, data.data(), i, dist(rng));
      break;
    }
    case InitSpec::Distribution::kRandInt: {
      std::uniform_int_distribution<int64_t> dist(plan.randint_low, plan.randint_high - 1);
      for (int64_t i = 0; i < plan.count; ++i) {
        int64_t v = dist(rng);
        if (arg.dtype == DType::kInt64) {
          std::memcpy(data.data() + i * 8, &v, 8);
        } else {
          store_from_double(arg.dtype, data.data(), i, static_cast<double>(v));
        }
      }
      break;
    }
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
