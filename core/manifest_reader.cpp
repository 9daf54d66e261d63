#include "core/manifest_reader.h"

namespace kgate {

Error ManifestReader::fail(const std::string& path, const std::string& what) const {
  return Error::bad_input(file_ + ": " + (path.empty() ? "(top level)" : path) + ": " + what);
}

Status ManifestReader::check_keys(const json& object, const std::string& path,
                                  std::initializer_list<std::string_view> allowed) const {
  for (const auto& [key, _] : object.items()) {
    bool known = false;
    for (std::string_view a : allowed) known |= (a == key);
    if (!known) {
      std::string list;
      for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      return fail(path, "unknown key '" + key + "' (expected one of: " + list + ")");
    }
  }
  return {};
}

Result<std::string> ManifestReader::get_string(const json& object, const std::string& path,
                                               const char* key, bool required) const {
  auto it = object.find(key);
  if (it == object.end()) {
    if (required) return fail(path + "." + key, "missing; expected a string");
    return std::string();
  }
  if (!it->is_string() || it->get<std::string>().empty())
    return fail(path + "." + key,
                std::string("expected a non-empty string, got ") + it->type_name());
  return it->get<std::string>();
}

Result<Expression> ManifestReader::get_expression(const json& value,
                                                  const std::string& path) const {
  if (value.is_number_integer()) return Expression::constant(value.get<int64_t>());
  if (!value.is_string())
    return fail(path, std::string("expected an integer or an integer expression string, got ") +
                          value.type_name());
  auto expression = Expression::parse(value.get<std::string>());
  if (!expression.ok()) return fail(path, expression.error().message);
  return expression;
}

Result<double> ManifestReader::get_number(const json& object, const std::string& path,
                                          const char* key, double fallback) const {
  auto it = object.find(key);
  if (it == object.end()) return fallback;
  if (!it->is_number())
    return fail(path + "." + key, std::string("expected a number, got ") + it->type_name());
  return it->get<double>();
}

Status ManifestReader::check_file(const std::string& path, const std::string& relative) const {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(root_ / relative, ec))
    return fail(path, "file '" + relative + "' not found (paths are relative to the folder of " +
                          file_ + ")");
  return {};
}

}  // namespace kgate
