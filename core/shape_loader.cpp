#include "core/shape_loader.h"

#include <regex>

namespace kgate {

Result<ShapeTiming> load_shape_timing(const ManifestReader& reader, const nlohmann::json& value,
                                      const std::string& path) {
  const char* expected =
      "expected \"gate\" (timed, may fail the gate), \"report\" (timed, never fails it) or "
      "\"off\" (checked, not timed)";
  if (!value.is_string())
    return reader.fail(path, std::string(expected) + ", got " + value.type_name());
  auto timing = shape_timing_from_string(value.get<std::string>());
  if (!timing)
    return reader.fail(path, std::string(expected) + ", got \"" + value.get<std::string>() + "\"");
  return *timing;
}

Result<Shape> load_shape(const ManifestReader& reader, const nlohmann::json& s,
                         const std::string& path) {
  if (!s.is_object()) return reader.fail(path, "expected a shape object");
  Shape shape;
  shape.json_path = path;
  auto name = reader.get_string(s, path, "name", true);
  if (!name.ok()) return name.error();
  shape.name = *name;
  auto phase = reader.get_string(s, path, "phase", false);
  if (!phase.ok()) return phase.error();
  shape.phase = phase->empty() ? "any" : *phase;
  for (const auto& [key, value] : s.items()) {
    if (key == "name" || key == "phase") continue;
    if (key == "backends") {
      if (!value.is_array() || value.empty())
        return reader.fail(path + ".backends", "expected a non-empty array of backend names");
      for (const auto& b : value) {
        if (!b.is_string() || (b != "cuda" && b != "host"))
          return reader.fail(path + ".backends", "expected \"cuda\" or \"host\" entries");
        shape.backends.push_back(b.get<std::string>());
      }
      continue;
    }
    if (key == "allow_empty") {
      if (!value.is_boolean()) return reader.fail(path + ".allow_empty", "expected true or false");
      shape.allow_empty = value.get<bool>();
      continue;
    }
    if (key == "timing") {
      auto timing = load_shape_timing(reader, value, path + ".timing");
      if (!timing.ok()) return timing.error();
      shape.timing = *timing;
      continue;
    }
    if (!value.is_number())
      return reader.fail(path + "." + key, std::string("a shape variable must be a number, got ") +
                                               value.type_name());
    if (!std::regex_match(key, std::regex("[A-Za-z_][A-Za-z0-9_]*")))
      return reader.fail(path + "." + key, "a shape variable name must be a C identifier");
    // Integers feed counts and launch expressions; other numbers (1e-6,
    // 0.125) only float scalars that name them.
    if (value.is_number_integer())
      shape.variables[key] = value.get<int64_t>();
    else
      shape.float_variables[key] = value.get<double>();
  }
  // An empty launch does no work to time: the shape is checked only.
  if (shape.allow_empty) {
    if (shape.timing && *shape.timing != ShapeTiming::kOff)
      return reader.fail(path + ".timing",
                         "a shape with \"allow_empty\": true is checked, never timed; drop "
                         "\"timing\" or write \"off\"");
    shape.timing = ShapeTiming::kOff;
  }
  if (shape.variables.empty())
    return reader.fail(path, "a shape needs at least one integer variable (rows, cols, ...)");
  return shape;
}

}  // namespace kgate
