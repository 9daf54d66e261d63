// Blocks of halves to and from floats for the host kernels' VEC tunable:
// with VEC = 8, eight at a time with the CPU's F16C instructions where it has
// them (checked once at run time, so the kernel needs no -march flag), one at
// a time otherwise. Both ways give the same bits as kgate::half: half to
// float is exact, float to half rounds to nearest even.
#pragma once
#include <kgate_host.h>

#include <cstdint>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace half_block {

#if defined(__x86_64__)
inline bool has_f16c() {
  static const bool yes = __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx");
  return yes;
}

__attribute__((target("avx,f16c"))) inline void to_floats_f16c(const kgate::half* in, float* out,
                                                               int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(out + i,
                     _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i))));
  for (; i < n; ++i) out[i] = float(in[i]);
}

__attribute__((target("avx,f16c"))) inline void to_halves_f16c(const float* in, kgate::half* out,
                                                               int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT));
  for (; i < n; ++i) out[i] = kgate::half(in[i]);
}
#endif

template <int V>
void to_floats(const kgate::half* in, float* out, int64_t n) {
#if defined(__x86_64__)
  if (V >= 8 && has_f16c()) return to_floats_f16c(in, out, n);
#endif
  for (int64_t i = 0; i < n; ++i) out[i] = float(in[i]);
}

template <int V>
void to_halves(const float* in, kgate::half* out, int64_t n) {
#if defined(__x86_64__)
  if (V >= 8 && has_f16c()) return to_halves_f16c(in, out, n);
#endif
  for (int64_t i = 0; i < n; ++i) out[i] = kgate::half(in[i]);
}

}  // namespace half_block
