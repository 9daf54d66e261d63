// Host-side data for the candle A/B harness: bf16 conversions, a counter
// based random generator (every element from its own index, so buffers fill
// on all threads and the bytes depend only on the seed) and a parallel for.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

namespace candle_ab {

inline float bf16_to_float(uint16_t b) {
  uint32_t u = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline uint16_t float_to_bf16(float f) {  // round to nearest even, as __float2bfloat16
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);  // NaN stays NaN
  return uint16_t((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
}

inline uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Uniform in (0, 1) from a stream (seed, element).
inline double uniform01(uint64_t seed, uint64_t i) {
  return (double(splitmix(seed * 0x100000001b3ull ^ i) >> 11) + 0.5) * 0x1.0p-53;
}

inline double normal(uint64_t seed, uint64_t i) {  // Box-Muller on two streams
  const double u1 = uniform01(seed, 2 * i), u2 = uniform01(seed, 2 * i + 1);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

template <class F>
void parallel_for(size_t n, F body) {
  const size_t threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 32);
  if (n < (1u << 16) || threads == 1) {
    for (size_t i = 0; i < n; ++i) body(i);
    return;
  }
  std::vector<std::thread> pool;
  const size_t chunk = (n + threads - 1) / threads;
  for (size_t t = 0; t < threads; ++t)
    pool.emplace_back([=] {
      for (size_t i = t * chunk; i < std::min(n, (t + 1) * chunk); ++i) body(i);
    });
  for (auto& th : pool) th.join();
}

}  // namespace candle_ab
