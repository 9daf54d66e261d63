#include "core/dtype.h"

#include <cmath>
#include <cstring>

#include "core/fp8.h"
#include "core/kgate_host.h"

namespace kgate {

std::optional<DType> parse_dtype(std::string_view name) {
  struct Alias {
    std::string_view name;
    DType type;
  };
  static constexpr Alias kAliases[] = {
      {"float64", DType::kFloat64},
      {"double", DType::kFloat64},
      {"f64", DType::kFloat64},
      {"float32", DType::kFloat32},
      {"float", DType::kFloat32},
      {"f32", DType::kFloat32},
      {"float16", DType::kFloat16},
      {"half", DType::kFloat16},
      {"__half", DType::kFloat16},
      {"f16", DType::kFloat16},
      {"fp16", DType::kFloat16},
      {"bfloat16", DType::kBFloat16},
      {"bf16", DType::kBFloat16},
      {"__nv_bfloat16", DType::kBFloat16},
      {"int64", DType::kInt64},
      {"int64_t", DType::kInt64},
      {"long long", DType::kInt64},
      {"int32", DType::kInt32},
      {"int32_t", DType::kInt32},
      {"int", DType::kInt32},
      {"uint8", DType::kUInt8},
      {"uint8_t", DType::kUInt8},
      {"unsigned char", DType::kUInt8},
      {"long", DType::kInt64},
      {"long int", DType::kInt64},
      {"ssize_t", DType::kInt64},
      {"ptrdiff_t", DType::kInt64},
      {"int8", DType::kInt8},
      {"int8_t", DType::kInt8},
      {"signed char", DType::kInt8},
      {"int16", DType::kInt16},
      {"int16_t", DType::kInt16},
      {"short", DType::kInt16},
      {"uint16", DType::kUInt16},
      {"uint16_t", DType::kUInt16},
      {"unsigned short", DType::kUInt16},
      {"uint32", DType::kUInt32},
      {"uint32_t", DType::kUInt32},
      {"unsigned int", DType::kUInt32},
      {"unsigned", DType::kUInt32},
      {"uint", DType::kUInt32},
      {"uint64", DType::kUInt64},
      {"uint64_t", DType::kUInt64},
      {"size_t", DType::kUInt64},
      {"unsigned long", DType::kUInt64},
      {"unsigned long long", DType::kUInt64},
      {"bool", DType::kBool},
      {"fp8_e4m3", DType::kFp8E4M3},
      {"__nv_fp8_e4m3", DType::kFp8E4M3},
      {"float8_e4m3", DType::kFp8E4M3},
      {"fp8_e5m2", DType::kFp8E5M2},
      {"__nv_fp8_e5m2", DType::kFp8E5M2},
      {"float8_e5m2", DType::kFp8E5M2},
  };
  for (const Alias& alias : kAliases)
    if (alias.name == name) return alias.type;
  return std::nullopt;
}

std::string_view dtype_name(DType type) {
  switch (type) {
    case DType::kFloat64:
      return "float64";
    case DType::kFloat32:
      return "float32";
    case DType::kFloat16:
      return "float16";
    case DType::kBFloat16:
      return "bfloat16";
    case DType::kInt64:
      return "int64";
    case DType::kInt32:
      return "int32";
    case DType::kUInt8:
      return "uint8";
    case DType::kInt8:
      return "int8";
    case DType::kInt16:
      return "int16";
    case DType::kUInt16:
      return "uint16";
    case DType::kUInt32:
      return "uint32";
    case DType::kUInt64:
      return "uint64";
    case DType::kBool:
      return "bool";
    case DType::kFp8E4M3:
      return "fp8_e4m3";
    case DType::kFp8E5M2:
      return "fp8_e5m2";
  }
  return "?";
}

std::string_view dtype_cpp_name(DType type) {
  switch (type) {
    case DType::kFloat64:
      return "double";
    case DType::kFloat32:
      return "float";
    case DType::kFloat16:
      return "kgate::half";
    case DType::kBFloat16:
      return "kgate::bfloat16";
    case DType::kInt64:
      return "int64_t";
    case DType::kInt32:
      return "int32_t";
    case DType::kUInt8:
      return "uint8_t";
    case DType::kInt8:
      return "int8_t";
    case DType::kInt16:
      return "int16_t";
    case DType::kUInt16:
      return "uint16_t";
    case DType::kUInt32:
      return "uint32_t";
    case DType::kUInt64:
      return "uint64_t";
    case DType::kBool:
      return "bool";
    case DType::kFp8E4M3:
    case DType::kFp8E5M2:
      return "uint8_t";  // the bytes; host kernels convert with kgate's fp8 helpers
  }
  return "void";
}

size_t dtype_size(DType type) {
  switch (type) {
    case DType::kFloat64:
    case DType::kInt64:
    case DType::kUInt64:
      return 8;
    case DType::kFloat32:
    case DType::kInt32:
    case DType::kUInt32:
      return 4;
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kInt16:
    case DType::kUInt16:
      return 2;
    case DType::kUInt8:
    case DType::kInt8:
    case DType::kBool:
    case DType::kFp8E4M3:
    case DType::kFp8E5M2:
      return 1;
  }
  return 0;
}

bool dtype_is_float(DType type) {
  return type == DType::kFloat64 || type == DType::kFloat32 || type == DType::kFloat16 ||
         type == DType::kBFloat16 || type == DType::kFp8E4M3 || type == DType::kFp8E5M2;
}

int64_t dtype_min(DType type) {
  switch (type) {
    case DType::kInt8:
      return INT8_MIN;
    case DType::kInt16:
      return INT16_MIN;
    case DType::kInt32:
      return INT32_MIN;
    case DType::kUInt8:
    case DType::kUInt16:
    case DType::kUInt32:
    case DType::kUInt64:
    case DType::kBool:
      return 0;
    default:
      return INT64_MIN;
  }
}

int64_t dtype_max(DType type) {
  switch (type) {
    case DType::kInt8:
      return INT8_MAX;
    case DType::kInt16:
      return INT16_MAX;
    case DType::kInt32:
      return INT32_MAX;
    case DType::kUInt8:
      return UINT8_MAX;
    case DType::kUInt16:
      return UINT16_MAX;
    case DType::kUInt32:
      return UINT32_MAX;
    case DType::kBool:
      return 1;
    default:
      return INT64_MAX;
  }
}

std::string_view dtype_names() {
  return "float64, float32, float16, bfloat16, int8, int16, int32, int64, uint8, uint16, "
         "uint32, uint64 (size_t), bool, fp8_e4m3, fp8_e5m2";
}

double load_as_double(DType type, const void* data, size_t index) {
  const auto* bytes = static_cast<const unsigned char*>(data) + index * dtype_size(type);
  switch (type) {
    case DType::kFloat64: {
      double v;
      std::memcpy(&v, bytes, 8);
      return v;
    }
    case DType::kFloat32: {
      float v;
      std::memcpy(&v, bytes, 4);
      return v;
    }
    case DType::kFloat16: {
      uint16_t v;
      std::memcpy(&v, bytes, 2);
      return half_bits_to_float(v);
    }
    case DType::kBFloat16: {
      uint16_t v;
      std::memcpy(&v, bytes, 2);
      return bfloat16_bits_to_float(v);
    }
    case DType::kInt64: {
      int64_t v;
      std::memcpy(&v, bytes, 8);
      return static_cast<double>(v);
    }
    case DType::kInt32: {
      int32_t v;
      std::memcpy(&v, bytes, 4);
      return v;
    }
    case DType::kUInt8:
      return *bytes;
    case DType::kInt8:
      return static_cast<int8_t>(*bytes);
    case DType::kBool:
      return *bytes != 0;
    case DType::kFp8E4M3:
      return fp8::to_double(*bytes, fp8::kE4M3);
    case DType::kFp8E5M2:
      return fp8::to_double(*bytes, fp8::kE5M2);
    case DType::kInt16: {
      int16_t v;
      std::memcpy(&v, bytes, 2);
      return v;
    }
    case DType::kUInt16: {
      uint16_t v;
      std::memcpy(&v, bytes, 2);
      return v;
    }
    case DType::kUInt32: {
      uint32_t v;
      std::memcpy(&v, bytes, 4);
      return v;
    }
    case DType::kUInt64: {
      uint64_t v;
      std::memcpy(&v, bytes, 8);
      return static_cast<double>(v);
    }
  }
  return 0;
}

void store_from_double(DType type, void* data, size_t index, double value) {
  auto* bytes = static_cast<unsigned char*>(data) + index * dtype_size(type);
  switch (type) {
    case DType::kFloat64:
      std::memcpy(bytes, &value, 8);
      return;
    case DType::kFloat32: {
      float v = static_cast<float>(value);
      std::memcpy(bytes, &v, 4);
      return;
    }
    case DType::kFloat16: {
      uint16_t v = float_to_half_bits(static_cast<float>(value));
      std::memcpy(bytes, &v, 2);
      return;
    }
    case DType::kBFloat16: {
      uint16_t v = float_to_bfloat16_bits(static_cast<float>(value));
      std::memcpy(bytes, &v, 2);
      return;
    }
    case DType::kInt64: {
      int64_t v = static_cast<int64_t>(value);
      std::memcpy(bytes, &v, 8);
      return;
    }
    case DType::kInt32: {
      int32_t v = static_cast<int32_t>(value);
      std::memcpy(bytes, &v, 4);
      return;
    }
    case DType::kUInt8:
      *bytes = static_cast<unsigned char>(value);
      return;
    case DType::kInt8:
      *bytes = static_cast<unsigned char>(static_cast<int8_t>(value));
      return;
    case DType::kBool:
      *bytes = value != 0;
      return;
    case DType::kFp8E4M3:
      *bytes = fp8::from_double(value, fp8::kE4M3);
      return;
    case DType::kFp8E5M2:
      *bytes = fp8::from_double(value, fp8::kE5M2);
      return;
    case DType::kInt16: {
      int16_t v = static_cast<int16_t>(value);
      std::memcpy(bytes, &v, 2);
      return;
    }
    case DType::kUInt16: {
      uint16_t v = static_cast<uint16_t>(value);
      std::memcpy(bytes, &v, 2);
      return;
    }
    case DType::kUInt32: {
      uint32_t v = static_cast<uint32_t>(value);
      std::memcpy(bytes, &v, 4);
      return;
    }
    case DType::kUInt64: {
      uint64_t v = static_cast<uint64_t>(value);
      std::memcpy(bytes, &v, 8);
      return;
    }
  }
}

}  // namespace kgate
