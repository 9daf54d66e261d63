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

enum class DType { kFloat64, kFloat32, kFloat16, kBFloat16, kInt64, kInt32, kUInt8 };

// Accepts canonical names (float32, float16, bfloat16, int32, int64, uint8,
// float64) and the C spellings kernels use (float, half, __half, bf16,
// __nv_bfloat16, int, int32_t, ...).
std::optional<DType> parse_dtype(std::string_view name);
std::string_view dtype_name(DType type);
// The C++ type a kernel source spells for it (host backend trampolines).
std::string_view dtype_cpp_name(DType type);
size_t dtype_size(DType type);
bool dtype_is_float(DType type);

// Reads element `index` of a buffer of `type` as double, and writes one.
double load_as_double(DType type, const void* data, size_t index);
void store_from_double(DType type, void* data, size_t index, double value);

}  // namespace kgate
