#include "runner/inputs.h"

#include <cmath>
#include <cstring>
#include <numbers>

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

// Elements per chunk handed to a thread: large enough that starting threads
// costs little beside the work, small buffers stay on the calling thread.
constexpr int64_t kGrain = int64_t{1} << 18;

}  // namespace

std::vector<unsigned char> make_input(const ArgPlan& plan, uint64_t seed, size_t position,
                                      int threads) {
  const Arg& arg = *plan.arg;
  std::vector<unsigned char> data(plan.bytes);
  unsigned char* out = data.data();
  const uint64_t key = mix64(seed * kGamma + position * 0xBF58476D1CE4E5B9ull + 1);
  const InitSpec& init = arg.init;
  const DType dtype = arg.dtype;
  const int64_t count = plan.count;
  switch (init.distribution) {
    case InitSpec::Distribution::kNormal: {
      // Box–Muller on pair p gives elements 2p and 2p + 1.
      const bool is_float = dtype_is_float(dtype);
      auto store = [&](int64_t i, double v) {
        if (!is_float) v = std::max(1.0, std::abs(v) * 16);
        store_from_double(dtype, out, i, v);
      };
      parallel_for((count + 1) / 2, kGrain / 2,
                   [&](int64_t begin, int64_t end) {
                     for (int64_t p = begin; p < end; ++p) {
                       double r =
                           init.stddev * std::sqrt(-2 * std::log(unit_open(draw(key, 2 * p))));
                       double theta = 2 * std::numbers::pi * unit_open(draw(key, 2 * p + 1));
                       store(2 * p, init.mean + r * std::cos(theta));
                       if (2 * p + 1 < count) store(2 * p + 1, init.mean + r * std::sin(theta));
                     }
                   },
                   threads);
      break;
    }
    case InitSpec::Distribution::kUniform: {
      const double low = init.low, width = init.high - init.low;
      parallel_for(
          count, kGrain,
          [&](int64_t begin, int64_t end) {
            for (int64_t i = begin; i < end; ++i)
              store_from_double(dtype, out, i, low + width * unit_open(draw(key, i)));
          },
          threads);
      break;
    }
    case InitSpec::Distribution::kRandInt: {
      const int64_t low = plan.randint_low;
      const uint64_t range = static_cast<uint64_t>(plan.randint_high - plan.randint_low);
      parallel_for(
          count, kGrain,
          [&](int64_t begin, int64_t end) {
            for (int64_t i = begin; i < end; ++i) {
              // The high half of bits * range: uniform on [0, range) up to 2^-64 bias.
              auto offset = static_cast<uint64_t>(
                  (static_cast<unsigned __int128>(draw(key, i)) * range) >> 64);
              int64_t v = low + static_cast<int64_t>(offset);
              if (dtype == DType::kInt64)
                std::memcpy(out + i * 8, &v, 8);
              else
                store_from_double(dtype, out, i, static_cast<double>(v));
            }
          },
          threads);
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
