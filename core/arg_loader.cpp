#include "core/arg_loader.h"

#include <regex>

namespace kgate {

using json = nlohmann::json;

Result<Arg> load_arg(const ManifestReader& reader, const json& a, const std::string& path) {
  if (!a.is_object()) return reader.fail(path, "expected an argument object");
  KGATE_RETURN_IF_ERROR(
      reader.check_keys(a, path, {"name", "type", "count", "role", "init", "value"}));
  Arg arg;
  arg.json_path = path;
  auto name = reader.get_string(a, path, "name", true);
  if (!name.ok()) return name.error();
  arg.name = *name;
  auto type = reader.get_string(a, path, "type", true);
  if (!type.ok()) return type.error();
  std::string t = *type;
  if (t.rfind("const ", 0) == 0) t = t.substr(6);
  while (!t.empty() && t.back() == ' ') t.pop_back();
  if (!t.empty() && t.back() == '*') {
    arg.is_buffer = true;
    t.pop_back();
    while (!t.empty() && t.back() == ' ') t.pop_back();
  }
  auto dtype = parse_dtype(t);
  if (!dtype)
    return reader.fail(path + ".type",
                       "unknown type '" + *type +
                           "' (expected float32, float16, bfloat16, float64, int32, "
                           "int64 or uint8, with '*' for a buffer)");
  arg.dtype = *dtype;

  if (arg.is_buffer) {
    if (a.contains("value"))
      return reader.fail(path + ".value", "a buffer takes \"count\", not \"value\"");
    auto count = a.find("count");
    if (count == a.end())
      return reader.fail(path + ".count", "missing; a buffer needs an element count");
    auto e = reader.get_expression(*count, path + ".count");
    if (!e.ok()) return e.error();
    arg.count = *e;
    auto role = reader.get_string(a, path, "role", false);
    if (!role.ok()) return role.error();
    if (role->empty() || *role == "input")
      arg.role = ArgRole::kInput;
    else if (*role == "output")
      arg.role = ArgRole::kOutput;
    else if (*role == "inout")
      arg.role = ArgRole::kInOut;
    else
      return reader.fail(path + ".role",
                         "expected \"input\", \"output\" or \"inout\", got '" + *role + "'");
    if (auto init = a.find("init"); init != a.end()) {
      if (arg.role == ArgRole::kOutput)
        return reader.fail(path + ".init",
                           "an output is poisoned, not initialized; remove \"init\"");
      json spec = init->is_string() ? json{{"dist", *init}} : *init;
      if (!spec.is_object())
        return reader.fail(path + ".init", "expected a distribution name or object");
      KGATE_RETURN_IF_ERROR(
          reader.check_keys(spec, path + ".init", {"dist", "mean", "std", "low", "high"}));
      auto dist = reader.get_string(spec, path + ".init", "dist", true);
      if (!dist.ok()) return dist.error();
      InitSpec& out = arg.init;
      if (*dist == "normal") {
        out.distribution = InitSpec::Distribution::kNormal;
        auto mean = reader.get_number(spec, path + ".init", "mean", 0.0);
        auto stddev = reader.get_number(spec, path + ".init", "std", 1.0);
        if (!mean.ok()) return mean.error();
        if (!stddev.ok()) return stddev.error();
        if (*stddev <= 0) return reader.fail(path + ".init.std", "expected a positive number");
        out.mean = *mean;
        out.stddev = *stddev;
      } else if (*dist == "uniform") {
        out.distribution = InitSpec::Distribution::kUniform;
        auto low = reader.get_number(spec, path + ".init", "low", -1.0);
        auto high = reader.get_number(spec, path + ".init", "high", 1.0);
        if (!low.ok()) return low.error();
        if (!high.ok()) return high.error();
        if (!(*low < *high)) return reader.fail(path + ".init", "expected low < high");
        out.low = *low;
        out.high = *high;
      } else if (*dist == "randint") {
        if (dtype_is_float(arg.dtype))
          return reader.fail(path + ".init", "randint is for integer buffers");
        out.distribution = InitSpec::Distribution::kRandInt;
        for (const char* key : {"low", "high"}) {
          if (!spec.contains(key))
            return reader.fail(path + ".init." + key,
                               "missing; randint needs low (inclusive) and high (exclusive)");
          auto e = reader.get_expression(spec[key], path + ".init." + key);
          if (!e.ok()) return e.error();
          (std::string(key) == "low" ? out.int_low : out.int_high) = *e;
        }
      } else {
        return reader.fail(path + ".init.dist", "unknown distribution '" + *dist +
                                                    "' (expected normal, uniform or randint)");
      }
    } else if (!dtype_is_float(arg.dtype) && arg.role != ArgRole::kOutput) {
      return reader.fail(
          path + ".init",
          "missing; an integer input buffer needs {\"dist\": \"randint\", \"low\": ..., "
          "\"high\": ...} so indices stay in range");
    }
  } else {
    if (a.contains("count") || a.contains("role") || a.contains("init"))
      return reader.fail(path, "a scalar takes \"value\" only (add '*' to the type for a buffer)");
    auto value = a.find("value");
    if (value == a.end())
      return reader.fail(path + ".value", "missing; a scalar argument needs a value");
    if (dtype_is_float(arg.dtype)) {
      if (value->is_number()) {
        arg.float_value = value->get<double>();
      } else if (value->is_string()) {
        // A number written as text ("1e-6", "inf") stays a number; a name is
        // a shape variable: each shape passes its own value (checked against
        // every shape by the manifest loader).
        const std::string text = value->get<std::string>();
        bool parsed = false;
        try {
          size_t used = 0;
          arg.float_value = std::stod(text, &used);
          parsed = used == text.size();
        } catch (const std::exception&) {
        }
        if (!parsed) {
          if (!std::regex_match(text, std::regex("[A-Za-z_][A-Za-z0-9_]*")))
            return reader.fail(path + ".value",
                               "expected a number or a shape variable name, got \"" + text + "\"");
          arg.float_value = 0.0;
          arg.float_variable = text;
        }
      } else {
        return reader.fail(path + ".value", "expected a number or a shape variable name, got " +
                                                std::string(value->type_name()));
      }
    } else {
      auto e = reader.get_expression(*value, path + ".value");
      if (!e.ok()) return e.error();
      arg.int_value = *e;
    }
  }
  return arg;
}

}  // namespace kgate
