#pragma once
// Element types of kernel arguments, their names in the manifest and their
// conversions to and from double (the precision results are compared in).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/kgate_host.h"  // half and bfloat16 bit conversions

namespace kgate {

// The order is part of the GPU input draw's ABI (input_formula::DrawSpec's
// dtype): new types go at the end.
enum class DType {
  kFloat64,
  kFloat32,
  kFloat16,
  kBFloat16,
  kInt64,
  kInt32,
  kUInt8,
  kInt8,
  kInt16,
  kUInt16,
  kUInt32,
  kUInt64,
  kBool,
  kFp8E4M3,
  kFp8E5M2
};

// Accepts canonical names (float64, float32, float16, bfloat16, int8, int16,
// int32, int64, uint8, uint16, uint32, uint64, bool) and the C spellings
// kernels use (float, half, __half, bf16, __nv_bfloat16, int, int32_t,
// unsigned int, size_t, long, __nv_fp8_e4m3, ...), with the sizes of the LP64 ABI that
// nvcc and g++ share on x86-64 and AArch64 Linux (long and size_t: 8 bytes).
std::optional<DType> parse_dtype(std::string_view name);
std::string_view dtype_name(DType type);
// The C++ type a kernel source spells for it (host backend trampolines).
std::string_view dtype_cpp_name(DType type);
size_t dtype_size(DType type);
bool dtype_is_float(DType type);
// The values an integer type holds, as int64 (uint64 above 2^63 - 1 cannot be
// written in kgate's 64-bit signed expressions); for floats, the full range.
int64_t dtype_min(DType type);
int64_t dtype_max(DType type);
// The names parse_dtype accepts in canonical form, for messages.
std::string_view dtype_names();

// Reads element `index` of a buffer of `type` as double, and writes one.
double load_as_double(DType type, const void* data, size_t index);
void store_from_double(DType type, void* data, size_t index, double value);

}  // namespace kgate
