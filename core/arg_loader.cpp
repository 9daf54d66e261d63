#include "core/arg_loader.h"

#include <regex>
#include <set>

#include "core/init_loader.h"
#include "core/tolerance_loader.h"

namespace kgate {
namespace {

using json = nlohmann::json;

// "const float *" -> ("float", pointer); "size_t" -> ("size_t", scalar).
std::pair<std::string, bool> split_type(std::string t) {
  auto trim = [](std::string& s) {
    while (!s.empty() && s.back() == ' ') s.pop_back();
    while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  };
  trim(t);
  bool pointer = false;
  if (!t.empty() && t.back() == '*') {
    pointer = true;
    t.pop_back();
    trim(t);
    // "float * __restrict__" reads "float * const" the same way: qualifiers
    // after the '*' say nothing about the bytes.
  }
  for (const char* qualifier : {"const ", "volatile "})
    while (t.rfind(qualifier, 0) == 0) t = t.substr(std::string(qualifier).size());
  for (const char* qualifier : {" const", " __restrict__"})
    while (t.size() > std::string(qualifier).size() &&
           t.compare(t.size() - std::string(qualifier).size(), std::string::npos, qualifier) == 0)
      t.resize(t.size() - std::string(qualifier).size());
  trim(t);
  return {t, pointer};
}

bool is_struct_type(const std::string& t) {
  return t == "struct" || t.rfind("struct ", 0) == 0;
}

Result<Arg> load_struct(const ManifestReader& reader, const json& a, const std::string& path,
                        Arg arg) {
  arg.is_struct = true;
  for (const char* key :
       {"count", "role", "init", "value", "null", "one_sided", "tolerance", "reference_only"})
    if (a.contains(key))
      return reader.fail(path + "." + key,
                         "a struct takes \"fields\" (and \"align\"); give this to a field");
  auto fields = a.find("fields");
  if (fields == a.end() || !fields->is_array() || fields->empty())
    return reader.fail(path + ".fields",
                       "missing; a struct passed by value lists its fields in order, each like "
                       "an argument");
  if (auto align = a.find("align"); align != a.end()) {
    if (!align->is_number_integer() || align->get<int64_t>() < 1 || align->get<int64_t>() > 4096 ||
        (align->get<int64_t>() & (align->get<int64_t>() - 1)) != 0)
      return reader.fail(path + ".align", "expected a power of two from 1 to 4096");
    arg.align = align->get<int64_t>();
  }
  std::set<std::string> names;
  for (size_t i = 0; i < fields->size(); ++i) {
    auto field =
        load_arg(reader, (*fields)[i], path + ".fields[" + std::to_string(i) + "]", arg.name + ".");
    if (!field.ok()) return field.error();
    if (!names.insert(field->name).second)
      return reader.fail(field->json_path + ".name", "duplicate field name '" + field->name + "'");
    if (field->reference_only)
      return reader.fail(
          field->json_path + ".reference_only",
          "a struct's field is the kernel's: give the reference a top-level argument");
    arg.fields.push_back(std::move(field.value()));
  }
  return arg;
}

Status load_role(const ManifestReader& reader, const json& a, const std::string& path, Arg& arg) {
  auto role = reader.get_string(a, path, "role", false);
  if (!role.ok()) return role.error();
  if (role->empty() || *role == "input")
    arg.role = ArgRole::kInput;
  else if (*role == "output")
    arg.role = ArgRole::kOutput;
  else if (*role == "inout")
    arg.role = ArgRole::kInOut;
  else if (*role == "scratch")
    arg.role = ArgRole::kScratch;
  else
    return reader.fail(
        path + ".role",
        "expected \"input\", \"output\", \"inout\" or \"scratch\", got '" + *role + "'");
  return {};
}

Status load_buffer(const ManifestReader& reader, const json& a, const std::string& path, Arg& arg) {
  if (a.contains("value"))
    return reader.fail(path + ".value", "a buffer takes \"count\", not \"value\"");
  if (a.contains("reference_only"))
    return reader.fail(path + ".reference_only", "is for scalars (a value the reference needs)");
  KGATE_RETURN_IF_ERROR(load_role(reader, a, path, arg));
  const bool given_input = arg.role == ArgRole::kInput || arg.role == ArgRole::kInOut;
  if (auto null = a.find("null"); null != a.end()) {
    if (null->is_boolean()) {
      if (null->get<bool>()) arg.null_when = Expression::constant(1);
    } else {
      auto e = reader.get_expression(*null, path + ".null");
      if (!e.ok()) return e.error();
      arg.null_when = *e;
    }
  }
  // `"null": true`: no contents to draw and no count to give.
  const bool always_null = arg.null_when && arg.null_when->text() == "1";
  if (auto init = a.find("init"); init != a.end()) {
    if (!given_input)
      return reader.fail(path + ".init",
                         std::string(arg.role == ArgRole::kOutput ? "an output" : "scratch") +
                             " is poisoned, not initialized; remove \"init\"");
    auto spec = load_init(reader, *init, path + ".init", arg.dtype);
    if (!spec.ok()) return spec.error();
    arg.init = std::move(spec.value());
  } else if (!dtype_is_float(arg.dtype) && given_input && !always_null) {
    return reader.fail(
        path + ".init",
        "missing; an integer input buffer needs {\"dist\": \"randint\", \"low\": ..., "
        "\"high\": ...} so indices stay in range, or given contents (\"values\", \"formula\")");
  }
  if (auto count = a.find("count"); count != a.end()) {
    auto e = reader.get_expression(*count, path + ".count");
    if (!e.ok()) return e.error();
    arg.count = *e;
  } else if (arg.init.distribution == InitSpec::Distribution::kValues) {
    arg.count = Expression::constant(static_cast<int64_t>(arg.init.values.size()));
  } else if (always_null) {
    arg.count = Expression::constant(0);
  } else {
    return reader.fail(path + ".count", "missing; a buffer needs an element count");
  }
  if (auto one_sided = a.find("one_sided"); one_sided != a.end()) {
    if (!one_sided->is_boolean()) return reader.fail(path + ".one_sided", "expected true or false");
    arg.one_sided = one_sided->get<bool>();
  }
  if (auto tolerance = a.find("tolerance"); tolerance != a.end()) {
    if (arg.role != ArgRole::kOutput && arg.role != ArgRole::kInOut)
      return reader.fail(path + ".tolerance", "only outputs and inout buffers are compared");
    // The kernel's tolerance fills the fields not given (manifest_loader).
    auto t = load_tolerance(reader, *tolerance, path + ".tolerance", Tolerance{-1, -1, -1, -1});
    if (!t.ok()) return t.error();
    arg.tolerance = *t;
  }
  return {};
}

Status load_scalar(const ManifestReader& reader, const json& a, const std::string& path, Arg& arg) {
  for (const char* key : {"count", "role", "init", "null", "tolerance", "fields"})
    if (a.contains(key))
      return reader.fail(path + "." + key,
                         "a scalar takes \"value\" only (add '*' to the type for a buffer)");
  if (a.contains("one_sided"))
    return reader.fail(path + ".one_sided",
                       "scalars need no \"one_sided\": each side of a change passes its own");
  if (auto only = a.find("reference_only"); only != a.end()) {
    if (!only->is_boolean()) return reader.fail(path + ".reference_only", "expected true or false");
    arg.reference_only = only->get<bool>();
  }
  auto value = a.find("value");
  if (value == a.end())
    return reader.fail(path + ".value", "missing; a scalar argument needs a value");
  if (!dtype_is_float(arg.dtype)) {
    if (value->is_boolean()) {  // "value": true for a bool
      arg.int_value = Expression::constant(value->get<bool>() ? 1 : 0);
      return {};
    }
    auto e = reader.get_expression(*value, path + ".value");
    if (!e.ok()) return e.error();
    arg.int_value = *e;
    return {};
  }
  if (value->is_number()) {
    arg.float_value = value->get<double>();
    return {};
  }
  if (!value->is_string())
    return reader.fail(path + ".value", "expected a number or a shape variable name, got " +
                                            std::string(value->type_name()));
  // A number written as text ("1e-6", "inf") stays a number; a name is a
  // shape variable: each shape passes its own value (checked against every
  // shape by the manifest loader).
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
  return {};
}

}  // namespace

Result<Arg> load_arg(const ManifestReader& reader, const json& a, const std::string& path,
                     const std::string& name_prefix) {
  if (!a.is_object()) return reader.fail(path, "expected an argument object");
  KGATE_RETURN_IF_ERROR(
      reader.check_keys(a, path,
                        {"name", "type", "count", "role", "init", "value", "null", "one_sided",
                         "tolerance", "fields", "align", "reference_only", "description"}));
  Arg arg;
  arg.json_path = path;
  auto name = reader.get_string(a, path, "name", true);
  if (!name.ok()) return name.error();
  if (!std::regex_match(*name, std::regex("[A-Za-z_][A-Za-z0-9_]*")))
    return reader.fail(path + ".name",
                       "'" + *name + "' is not a parameter name (letters, digits, _)");
  arg.name = name_prefix + *name;
  auto type = reader.get_string(a, path, "type", true);
  if (!type.ok()) return type.error();
  auto [element, pointer] = split_type(*type);
  if (!pointer && is_struct_type(element)) return load_struct(reader, a, path, std::move(arg));
  if (a.contains("fields") || a.contains("align"))
    return reader.fail(path + (a.contains("fields") ? ".fields" : ".align"),
                       "only a struct (\"type\": \"struct\") has fields");
  auto dtype = parse_dtype(element);
  if (!dtype)
    return reader.fail(path + ".type",
                       "unknown type '" + *type + "' (expected " + std::string(dtype_names()) +
                           ", with '*' for a buffer, or \"struct\" with \"fields\")");
  arg.dtype = *dtype;
  arg.is_buffer = pointer;
  if (pointer)
    KGATE_RETURN_IF_ERROR(load_buffer(reader, a, path, arg));
  else
    KGATE_RETURN_IF_ERROR(load_scalar(reader, a, path, arg));
  return arg;
}

}  // namespace kgate
