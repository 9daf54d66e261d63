#include "core/dtype_convert.h"

#include <immintrin.h>

namespace kgate {
namespace {

template <class T, class Convert>
void load_range(const void* data, int64_t begin, int64_t end, double* out, Convert convert) {
  const auto* bytes = static_cast<const unsigned char*>(data) + begin * sizeof(T);
  for (int64_t k = 0; k < end - begin; ++k) {
    T v;
    std::memcpy(&v, bytes + k * sizeof(T), sizeof(T));
    out[k] = convert(v);
  }
}

// Half to double eight at a time with the CPU's F16C conversion (exact, as
// half_bits_to_float is); the tail one at a time.
__attribute__((target("avx,f16c"))) void halves_f16c(const uint16_t* in, int64_t n, double* out) {
  int64_t k = 0;
  for (; k + 8 <= n; k += 8) {
    __m256 f = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + k)));
    _mm256_storeu_pd(out + k, _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
    _mm256_storeu_pd(out + k + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
  }
  for (; k < n; ++k) out[k] = half_bits_to_float(in[k]);
}

// Double to half eight at a time: to float (rounded, as static_cast<float>
// does), then to half rounding to nearest even, as float_to_half_bits does.
__attribute__((target("avx,f16c"))) void to_halves_f16c(const double* in, int64_t n,
                                                        uint16_t* out) {
  int64_t k = 0;
  for (; k + 8 <= n; k += 8) {
    __m128 lo = _mm256_cvtpd_ps(_mm256_loadu_pd(in + k));
    __m128 hi = _mm256_cvtpd_ps(_mm256_loadu_pd(in + k + 4));
    __m256 f = _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + k),
                     _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  }
  for (; k < n; ++k) out[k] = float_to_half_bits(static_cast<float>(in[k]));
}

bool has_f16c() {
  static const bool yes = __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
  return yes;
}

}  // namespace

void store_range_from_double(DType type, const double* values, int64_t n, void* data,
                             int64_t first) {
  if (n <= 0) return;
  auto* bytes = static_cast<unsigned char*>(data);
  // NaN keeps float_to_half_bits's canonical quiet NaN: F16C keeps payloads.
  if (type == DType::kFloat16 && has_f16c()) {
    bool any_nan = false;
    for (int64_t k = 0; k < n; ++k) any_nan |= values[k] != values[k];
    if (!any_nan) return to_halves_f16c(values, n, reinterpret_cast<uint16_t*>(bytes + first * 2));
  }
  with_store(type, [&](auto store) {
    for (int64_t k = 0; k < n; ++k) store(bytes, first + k, values[k]);
  });
}

void load_range_as_double(DType type, const void* data, int64_t begin, int64_t end, double* out) {
  if (end <= begin) return;
  switch (type) {
    case DType::kFloat64:
      std::memcpy(out, static_cast<const unsigned char*>(data) + begin * 8, (end - begin) * 8);
      return;
    case DType::kFloat32:
      return load_range<float>(data, begin, end, out, [](float v) { return double(v); });
    case DType::kFloat16:
      if (has_f16c())
        return halves_f16c(static_cast<const uint16_t*>(data) + begin, end - begin, out);
      return load_range<uint16_t>(data, begin, end, out,
                                  [](uint16_t v) { return double(half_bits_to_float(v)); });
    case DType::kBFloat16:
      return load_range<uint16_t>(data, begin, end, out,
                                  [](uint16_t v) { return double(bfloat16_bits_to_float(v)); });
    case DType::kInt64:
      return load_range<int64_t>(data, begin, end, out,
                                 [](int64_t v) { return static_cast<double>(v); });
    case DType::kInt32:
      return load_range<int32_t>(data, begin, end, out, [](int32_t v) { return double(v); });
    case DType::kUInt8:
      return load_range<uint8_t>(data, begin, end, out, [](uint8_t v) { return double(v); });
    case DType::kInt8:
      return load_range<int8_t>(data, begin, end, out, [](int8_t v) { return double(v); });
    case DType::kBool:
      return load_range<uint8_t>(data, begin, end, out, [](uint8_t v) { return double(v != 0); });
    case DType::kFp8E4M3:
      return load_range<uint8_t>(data, begin, end, out,
                                 [](uint8_t v) { return fp8::to_double(v, fp8::kE4M3); });
    case DType::kFp8E5M2:
      return load_range<uint8_t>(data, begin, end, out,
                                 [](uint8_t v) { return fp8::to_double(v, fp8::kE5M2); });
    case DType::kInt16:
      return load_range<int16_t>(data, begin, end, out, [](int16_t v) { return double(v); });
    case DType::kUInt16:
      return load_range<uint16_t>(data, begin, end, out, [](uint16_t v) { return double(v); });
    case DType::kUInt32:
      return load_range<uint32_t>(data, begin, end, out, [](uint32_t v) { return double(v); });
    case DType::kUInt64:
      return load_range<uint64_t>(data, begin, end, out,
                                  [](uint64_t v) { return static_cast<double>(v); });
  }
}

}  // namespace kgate
