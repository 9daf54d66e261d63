#pragma once
// Bulk conversions between buffers of a DType and double, for the checks'
// large buffers (drawing inputs, the reference's in/out buffers, comparing
// outputs). load_as_double / store_from_double (dtype.h) take the type's
// switch and a call per element; these take it once per range and inline
// the element conversion, with the same results bit for bit.
#include <cstdint>
#include <cstring>

#include "core/dtype.h"
#include "core/fp8.h"

namespace kgate {

// out[k] = element begin + k of `data` (of `type`), for k < end - begin.
void load_range_as_double(DType type, const void* data, int64_t begin, int64_t end, double* out);

// Writes values[0..n) as elements first..first + n of `data` (of `type`),
// exactly as store_from_double would (half with the CPU's F16C conversion
// where it has it: the same rounding, to nearest even).
void store_range_from_double(DType type, const double* values, int64_t n, void* data,
                             int64_t first);

// Calls fn(store) once, where store(unsigned char* data, int64_t index,
// double value) writes one element of `type` exactly as store_from_double
// does; the store is a distinct type per DType, so fn's loop inlines it.
template <class Fn>
void with_store(DType type, Fn&& fn) {
  switch (type) {
    case DType::kFloat64:
      return fn([](unsigned char* d, int64_t i, double v) { std::memcpy(d + i * 8, &v, 8); });
    case DType::kFloat32:
      return fn([](unsigned char* d, int64_t i, double v) {
        float f = static_cast<float>(v);
        std::memcpy(d + i * 4, &f, 4);
      });
    case DType::kFloat16:
      return fn([](unsigned char* d, int64_t i, double v) {
        uint16_t b = float_to_half_bits(static_cast<float>(v));
        std::memcpy(d + i * 2, &b, 2);
      });
    case DType::kBFloat16:
      return fn([](unsigned char* d, int64_t i, double v) {
        uint16_t b = float_to_bfloat16_bits(static_cast<float>(v));
        std::memcpy(d + i * 2, &b, 2);
      });
    case DType::kInt64:
      return fn([](unsigned char* d, int64_t i, double v) {
        int64_t x = static_cast<int64_t>(v);
        std::memcpy(d + i * 8, &x, 8);
      });
    case DType::kInt32:
      return fn([](unsigned char* d, int64_t i, double v) {
        int32_t x = static_cast<int32_t>(v);
        std::memcpy(d + i * 4, &x, 4);
      });
    case DType::kUInt8:
      return fn(
          [](unsigned char* d, int64_t i, double v) { d[i] = static_cast<unsigned char>(v); });
    case DType::kInt8:
      return fn([](unsigned char* d, int64_t i, double v) {
        d[i] = static_cast<unsigned char>(static_cast<int8_t>(v));
      });
    case DType::kBool:
      return fn([](unsigned char* d, int64_t i, double v) { d[i] = v != 0; });
    case DType::kFp8E4M3:
      return fn(
          [](unsigned char* d, int64_t i, double v) { d[i] = fp8::from_double(v, fp8::kE4M3); });
    case DType::kFp8E5M2:
      return fn(
          [](unsigned char* d, int64_t i, double v) { d[i] = fp8::from_double(v, fp8::kE5M2); });
    case DType::kInt16:
      return fn([](unsigned char* d, int64_t i, double v) {
        int16_t x = static_cast<int16_t>(v);
        std::memcpy(d + i * 2, &x, 2);
      });
    case DType::kUInt16:
      return fn([](unsigned char* d, int64_t i, double v) {
        uint16_t x = static_cast<uint16_t>(v);
        std::memcpy(d + i * 2, &x, 2);
      });
    case DType::kUInt32:
      return fn([](unsigned char* d, int64_t i, double v) {
        uint32_t x = static_cast<uint32_t>(v);
        std::memcpy(d + i * 4, &x, 4);
      });
    case DType::kUInt64:
      return fn([](unsigned char* d, int64_t i, double v) {
        uint64_t x = static_cast<uint64_t>(v);
        std::memcpy(d + i * 8, &x, 8);
      });
  }
}

}  // namespace kgate
