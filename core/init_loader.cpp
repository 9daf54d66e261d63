#include "core/init_loader.h"

#include <regex>

namespace kgate {
namespace {

using json = nlohmann::json;

Result<InitSpec::Apply> load_apply(const ManifestReader& reader, const std::string& text,
                                   const std::string& path) {
  if (text.empty()) return InitSpec::Apply::kNone;
  if (text == "cos") return InitSpec::Apply::kCos;
  if (text == "sin") return InitSpec::Apply::kSin;
  if (text == "exp") return InitSpec::Apply::kExp;
  if (text == "abs") return InitSpec::Apply::kAbs;
  return reader.fail(path, "unknown function '" + text + "' (expected cos, sin, exp or abs)");
}

Result<std::vector<GivenValue>> load_values(const ManifestReader& reader, const json& list,
                                            const std::string& path, DType dtype) {
  if (!list.is_array() || list.empty())
    return reader.fail(path, "expected a non-empty array of numbers or expressions");
  std::vector<GivenValue> out;
  for (size_t i = 0; i < list.size(); ++i) {
    const json& v = list[i];
    const std::string at = path + "[" + std::to_string(i) + "]";
    GivenValue given;
    if (v.is_number_float()) {
      if (!dtype_is_float(dtype))
        return reader.fail(at,
                           "a fraction in an integer buffer; write an integer or an expression");
      given.is_number = true;
      given.number = v.get<double>();
    } else {
      auto e = reader.get_expression(v, at);
      if (!e.ok()) return e.error();
      given.expression = *e;
    }
    out.push_back(std::move(given));
  }
  return out;
}

}  // namespace

Result<InitSpec> load_init(const ManifestReader& reader, const json& value, const std::string& path,
                           DType dtype) {
  InitSpec out;
  // Shorthands: "normal", [1, 2, "cols"].
  json spec = value.is_string()  ? json{{"dist", value}}
              : value.is_array() ? json{{"values", value}}
                                 : value;
  if (!spec.is_object())
    return reader.fail(path, "expected a distribution name, an array of values or an object");
  KGATE_RETURN_IF_ERROR(reader.check_keys(spec, path,
                                          {"dist", "mean", "std", "low", "high", "sorted", "values",
                                           "formula", "scale", "share", "apply"}));
  std::string dist;
  if (spec.contains("values"))
    dist = "values";
  else if (spec.contains("formula"))
    dist = "formula";
  if (auto d = spec.find("dist"); d != spec.end()) {
    auto named = reader.get_string(spec, path, "dist", true);
    if (!named.ok()) return named.error();
    if (!dist.empty() && *named != dist)
      return reader.fail(path + ".dist", "\"" + *named + "\" beside \"" + dist +
                                             "\": give a distribution or given contents, not both");
    dist = *named;
  }
  if (dist.empty())
    return reader.fail(path,
                       "missing \"dist\" (normal, uniform, randint), \"values\" or \"formula\"");
  auto only_for = [&](std::initializer_list<const char*> keys, const char* what) -> Status {
    for (const char* key : keys)
      if (spec.contains(key))
        return reader.fail(path + "." + key, std::string("is for ") + what + " inits only");
    return {};
  };

  if (dist == "normal") {
    KGATE_RETURN_IF_ERROR(
        only_for({"low", "high", "sorted", "values", "formula", "scale"}, "other"));
    out.distribution = InitSpec::Distribution::kNormal;
    auto mean = reader.get_number(spec, path, "mean", 0.0);
    auto stddev = reader.get_number(spec, path, "std", 1.0);
    if (!mean.ok()) return mean.error();
    if (!stddev.ok()) return stddev.error();
    if (*stddev <= 0) return reader.fail(path + ".std", "expected a positive number");
    out.mean = *mean;
    out.stddev = *stddev;
  } else if (dist == "uniform") {
    KGATE_RETURN_IF_ERROR(
        only_for({"mean", "std", "sorted", "values", "formula", "scale"}, "other"));
    out.distribution = InitSpec::Distribution::kUniform;
    auto low = reader.get_number(spec, path, "low", -1.0);
    auto high = reader.get_number(spec, path, "high", 1.0);
    if (!low.ok()) return low.error();
    if (!high.ok()) return high.error();
    if (!(*low < *high)) return reader.fail(path, "expected low < high");
    out.low = *low;
    out.high = *high;
  } else if (dist == "randint") {
    KGATE_RETURN_IF_ERROR(only_for({"mean", "std", "values", "formula", "scale"}, "other"));
    if (dtype_is_float(dtype)) return reader.fail(path, "randint is for integer buffers");
    out.distribution = InitSpec::Distribution::kRandInt;
    for (const char* key : {"low", "high"}) {
      if (!spec.contains(key))
        return reader.fail(path + "." + key,
                           "missing; randint needs low (inclusive) and high (exclusive)");
      auto e = reader.get_expression(spec[key], path + "." + key);
      if (!e.ok()) return e.error();
      (std::string(key) == "low" ? out.int_low : out.int_high) = *e;
    }
    if (auto sorted = spec.find("sorted"); sorted != spec.end()) {
      if (!sorted->is_boolean()) return reader.fail(path + ".sorted", "expected true or false");
      out.sorted = sorted->get<bool>();
    }
  } else if (dist == "values") {
    KGATE_RETURN_IF_ERROR(only_for(
        {"mean", "std", "low", "high", "sorted", "formula", "scale", "share", "apply"}, "drawn"));
    out.distribution = InitSpec::Distribution::kValues;
    auto values = load_values(reader, spec["values"], path + ".values", dtype);
    if (!values.ok()) return values.error();
    out.values = std::move(values.value());
  } else if (dist == "formula") {
    KGATE_RETURN_IF_ERROR(
        only_for({"mean", "std", "low", "high", "sorted", "values", "share", "apply"}, "drawn"));
    out.distribution = InitSpec::Distribution::kFormula;
    if (!spec.contains("formula"))
      return reader.fail(path + ".formula", "missing; an integer expression of the index i");
    auto e = reader.get_expression(spec["formula"], path + ".formula");
    if (!e.ok()) return e.error();
    out.formula = *e;
    auto scale = reader.get_number(spec, path, "scale", 1.0);
    if (!scale.ok()) return scale.error();
    if (*scale != 1.0 && !dtype_is_float(dtype))
      return reader.fail(path + ".scale",
                         "is for float buffers (an integer buffer stores the formula)");
    out.scale = *scale;
  } else {
    return reader.fail(path + ".dist", "unknown distribution '" + dist +
                                           "' (expected normal, uniform or randint; or give "
                                           "\"values\" or \"formula\")");
  }

  auto share = reader.get_string(spec, path, "share", false);
  if (!share.ok()) return share.error();
  if (!share->empty() && !std::regex_match(*share, std::regex("[A-Za-z_][A-Za-z0-9_.-]*")))
    return reader.fail(path + ".share", "'" + *share + "' is not a name (letters, digits, _ . -)");
  out.share = *share;
  auto apply = reader.get_string(spec, path, "apply", false);
  if (!apply.ok()) return apply.error();
  auto applied = load_apply(reader, *apply, path + ".apply");
  if (!applied.ok()) return applied.error();
  out.apply = *applied;
  if (out.apply != InitSpec::Apply::kNone && !dtype_is_float(dtype))
    return reader.fail(path + ".apply", "is for float buffers");
  if (out.sorted && !out.share.empty())
    return reader.fail(path + ".sorted", "a sorted draw cannot be shared");
  return out;
}

}  // namespace kgate
