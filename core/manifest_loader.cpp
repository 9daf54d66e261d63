#include "core/manifest_loader.h"

#include "core/entry_name.h"
#include "core/workload_spec.h"

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace kgate {
namespace {

using json = nlohmann::json;

// Walks the JSON with a path for messages. All checks return Error values.
class Loader {
 public:
  Loader(std::filesystem::path display_path, std::filesystem::path root)
      : file_(display_path.string()), root_(std::move(root)) {}

  Result<Manifest> load(const json& doc);

 private:
  Error fail(const std::string& path, const std::string& what) const {
    return Error::bad_input(file_ + ": " + (path.empty() ? "(top level)" : path) + ": " + what);
  }
  static std::string type_name(const json& j) { return j.type_name(); }

  Status check_keys(const json& object, const std::string& path,
                    std::initializer_list<std::string_view> allowed) const;
  Result<std::string> get_string(const json& object, const std::string& path, const char* key,
                                 bool required) const;
  Result<Expression> get_expression(const json& value, const std::string& path) const;
  Result<double> get_number(const json& object, const std::string& path, const char* key,
                            double fallback) const;
  Status check_file(const std::string& path, const std::string& relative) const;

  Result<Kernel> load_kernel(const json& k, const std::string& path);
  Result<Implementation> load_implementation(const json& impl, const std::string& path,
                                             const std::string& backend);
  Result<Arg> load_arg(const json& a, const std::string& path);
  Result<Shape> load_shape(const json& s, const std::string& path);
  Status check_expressions(const Kernel& kernel) const;

  std::string file_;
  std::filesystem::path root_;
};

Status Loader::check_keys(const json& object, const std::string& path,
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

Result<std::string> Loader::get_string(const json& object, const std::string& path, const char* key,
                                       bool required) const {
  auto it = object.find(key);
  if (it == object.end()) {
    if (required) return fail(path + "." + key, "missing; expected a string");
    return std::string();
  }
  if (!it->is_string() || it->get<std::string>().empty())
    return fail(path + "." + key, "expected a non-empty string, got " + type_name(*it));
  return it->get<std::string>();
}

Result<Expression> Loader::get_expression(const json& value, const std::string& path) const {
  if (value.is_number_integer()) return Expression::constant(value.get<int64_t>());
  if (!value.is_string())
    return fail(path,
                "expected an integer or an integer expression string, got " + type_name(value));
  auto expression = Expression::parse(value.get<std::string>());
  if (!expression.ok()) return fail(path, expression.error().message);
  return expression;
}

Result<double> Loader::get_number(const json& object, const std::string& path, const char* key,
                                  double fallback) const {
  auto it = object.find(key);
  if (it == object.end()) return fallback;
  if (!it->is_number()) return fail(path + "." + key, "expected a number, got " + type_name(*it));
  return it->get<double>();
}

Status Loader::check_file(const std::string& path, const std::string& relative) const {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(root_ / relative, ec))
    return fail(path, "file '" + relative + "' not found (paths are relative to the folder of " +
                          file_ + ")");
  return {};
}

Result<Manifest> Loader::load(const json& doc) {
  if (!doc.is_object()) return fail("", "expected a JSON object, got " + type_name(doc));
  KGATE_RETURN_IF_ERROR(check_keys(doc, "", {"$schema", "version", "kernels", "gate", "workload"}));
  Manifest manifest;
  manifest.path = file_;
  manifest.root = root_;
  auto kernels = doc.find("kernels");
  if (kernels == doc.end() || !kernels->is_array() || kernels->empty())
    return fail("kernels", "expected a non-empty array of kernels");
  std::set<std::string> names;
  for (size_t i = 0; i < kernels->size(); ++i) {
    std::string path = "kernels[" + std::to_string(i) + "]";
    auto kernel = load_kernel((*kernels)[i], path);
    if (!kernel.ok()) return kernel.error();
    if (!names.insert(kernel->name).second)
      return fail(path + ".name",
                  "duplicate kernel name '" + kernel->name + "' (kernel names must be unique)");
    manifest.kernels.push_back(std::move(kernel.value()));
  }
  if (auto gate = doc.find("gate"); gate != doc.end()) {
    if (!gate->is_object()) return fail("gate", "expected an object");
    KGATE_RETURN_IF_ERROR(check_keys(*gate, "gate",
                                     {"max_regression", "min_improvement", "confidence", "budget_s",
                                      "resolution", "min_change_s", "sanitize"}));
    GatePolicy& p = manifest.gate;
    auto read = [&](const char* key, double& field, double lo, double hi) -> Status {
      auto value = get_number(*gate, "gate", key, field);
      if (!value.ok()) return value.error();
      if (*value < lo || *value > hi)
        return fail(std::string("gate.") + key, "expected a number in [" + std::to_string(lo) +
                                                    ", " + std::to_string(hi) + "]");
      field = *value;
      return {};
    };
    KGATE_RETURN_IF_ERROR(read("max_regression", p.max_regression, 0.0, 10.0));
    KGATE_RETURN_IF_ERROR(read("min_improvement", p.min_improvement, 0.0, 10.0));
    KGATE_RETURN_IF_ERROR(read("confidence", p.confidence, 0.5, 0.9999));
    KGATE_RETURN_IF_ERROR(read("budget_s", p.budget_s, 0.01, 3600.0));
    KGATE_RETURN_IF_ERROR(read("resolution", p.resolution, 0.0, 1.0));
    if (gate->contains("min_change_s"))
      KGATE_RETURN_IF_ERROR(read("min_change_s", p.min_change_s, 0.0, 1.0));
    if (auto tools = gate->find("sanitize"); tools != gate->end()) {
      if (!tools->is_array())
        return fail("gate.sanitize", "expected an array of compute-sanitizer tools");
      for (size_t i = 0; i < tools->size(); ++i) {
        const json& t = (*tools)[i];
        std::string where = "gate.sanitize[" + std::to_string(i) + "]";
        if (!t.is_string() || !is_sanitizer_tool(t.get<std::string>()))
          return fail(where,
                      "expected \"memcheck\", \"racecheck\", \"initcheck\" or \"synccheck\"");
        if (std::find(p.sanitize.begin(), p.sanitize.end(), t.get<std::string>()) !=
            p.sanitize.end())
          return fail(where, "'" + t.get<std::string>() + "' is listed twice");
        p.sanitize.push_back(t.get<std::string>());
      }
    }
  }
  if (auto workload = doc.find("workload"); workload != doc.end()) {
    if (!workload->is_object()) return fail("workload", "expected an object");
    manifest.workload = *workload;
    // Checked here so a bad section fails the load; users call workload_spec().
    if (auto spec = parse_workload_spec(*workload, file_); !spec.ok()) return spec.error();
  }
  return manifest;
}

Result<Kernel> Loader::load_kernel(const json& k, const std::string& path) {
  if (!k.is_object()) return fail(path, "expected a kernel object, got " + type_name(k));
  KGATE_RETURN_IF_ERROR(
      check_keys(k, path,
                 {"name", "family", "backend", "source", "entry", "compile", "launch", "tunables",
                  "impl", "args", "shapes", "reference", "tolerance", "timing", "description"}));
  Kernel kernel;
  kernel.json_path = path;
  kernel.raw = k;
  auto name = get_string(k, path, "name", true);
  if (!name.ok()) return name.error();
  if (!std::regex_match(*name, std::regex("[A-Za-z_][A-Za-z0-9_.-]*")))
    return fail(path + ".name", "'" + *name + "' is not a valid name (letters, digits, _ . -)");
  kernel.name = *name;
  auto family = get_string(k, path, "family", false);
  if (!family.ok()) return family.error();
  kernel.family = family->empty() ? kernel.name : *family;

  // Either "impl": {"cuda": {...}, "host": {...}} or the flat form with "backend".
  if (auto impl = k.find("impl"); impl != k.end()) {
    if (k.contains("source") || k.contains("entry"))
      return fail(path, "give either \"impl\" or \"source\"/\"entry\", not both");
    if (!impl->is_object() || impl->empty())
      return fail(path + ".impl", "expected an object keyed by backend (\"cuda\", \"host\")");
    for (const auto& [backend, body] : impl->items()) {
      auto implementation = load_implementation(body, path + ".impl." + backend, backend);
      if (!implementation.ok()) return implementation.error();
      kernel.implementations.push_back(std::move(implementation.value()));
    }
  } else {
    auto backend = get_string(k, path, "backend", false);
    if (!backend.ok()) return backend.error();
    json flat = json::object();
    for (const char* key : {"source", "entry", "compile", "launch", "tunables"})
      if (k.contains(key)) flat[key] = k[key];
    auto implementation =
        load_implementation(flat, path, backend->empty() ? std::string("cuda") : *backend);
    if (!implementation.ok()) return implementation.error();
    kernel.implementations.push_back(std::move(implementation.value()));
  }

  auto args = k.find("args");
  if (args == k.end() || !args->is_array() || args->empty())
    return fail(path + ".args", "missing; expected a non-empty array of arguments");
  std::set<std::string> arg_names;
  bool has_output = false;
  for (size_t i = 0; i < args->size(); ++i) {
    auto arg = load_arg((*args)[i], path + ".args[" + std::to_string(i) + "]");
    if (!arg.ok()) return arg.error();
    if (!arg_names.insert(arg->name).second)
      return fail(arg->json_path + ".name", "duplicate argument name '" + arg->name + "'");
    has_output |= arg->is_buffer && arg->role != ArgRole::kInput;
    kernel.args.push_back(std::move(arg.value()));
  }
  if (!has_output)
    return fail(path + ".args",
                "no output: mark at least one buffer with \"role\": \"output\" or \"inout\"");

  auto shapes = k.find("shapes");
  if (shapes == k.end() || !shapes->is_array() || shapes->empty())
    return fail(path + ".shapes",
                "missing or empty; declare shapes of real traffic per phase, boundary shapes and "
                "misaligned shapes");
  std::set<std::string> shape_names;
  for (size_t i = 0; i < shapes->size(); ++i) {
    auto shape = load_shape((*shapes)[i], path + ".shapes[" + std::to_string(i) + "]");
    if (!shape.ok()) return shape.error();
    if (!shape_names.insert(shape->name).second)
      return fail(shape->json_path + ".name", "duplicate shape name '" + shape->name + "'");
    kernel.shapes.push_back(std::move(shape.value()));
  }

  auto reference = k.find("reference");
  if (reference == k.end())
    return fail(path + ".reference",
                "missing; every kernel needs a host reference {\"source\": ..., \"entry\": ...} "
                "to be checked against");
  if (!reference->is_object()) return fail(path + ".reference", "expected an object");
  KGATE_RETURN_IF_ERROR(check_keys(*reference, path + ".reference", {"source", "entry"}));
  auto ref_source = get_string(*reference, path + ".reference", "source", true);
  if (!ref_source.ok()) return ref_source.error();
  auto ref_entry = get_string(*reference, path + ".reference", "entry", true);
  if (!ref_entry.ok()) return ref_entry.error();
  KGATE_RETURN_IF_ERROR(check_file(path + ".reference.source", *ref_source));
  kernel.reference = {*ref_source, *ref_entry};

  if (auto tolerance = k.find("tolerance"); tolerance != k.end()) {
    if (!tolerance->is_object()) return fail(path + ".tolerance", "expected an object");
    KGATE_RETURN_IF_ERROR(check_keys(*tolerance, path + ".tolerance", {"atol", "rtol"}));
    auto atol = get_number(*tolerance, path + ".tolerance", "atol", kernel.tolerance.atol);
    if (!atol.ok()) return atol.error();
    auto rtol = get_number(*tolerance, path + ".tolerance", "rtol", kernel.tolerance.rtol);
    if (!rtol.ok()) return rtol.error();
    if (*atol < 0 || *rtol < 0) return fail(path + ".tolerance", "tolerances must be >= 0");
    kernel.tolerance = {*atol, *rtol};
  }
  if (auto timing = k.find("timing"); timing != k.end()) {
    if (!timing->is_object()) return fail(path + ".timing", "expected an object");
    KGATE_RETURN_IF_ERROR(
        check_keys(*timing, path + ".timing", {"warmup", "samples", "time_limit_s"}));
    auto warmup = get_number(*timing, path + ".timing", "warmup", kernel.timing.warmup);
    if (!warmup.ok()) return warmup.error();
    auto samples = get_number(*timing, path + ".timing", "samples", kernel.timing.samples);
    if (!samples.ok()) return samples.error();
    auto limit = get_number(*timing, path + ".timing", "time_limit_s", kernel.timing.time_limit_s);
    if (!limit.ok()) return limit.error();
    if (*warmup < 0 || *samples < 1 || *limit <= 0)
      return fail(path + ".timing", "expected warmup >= 0, samples >= 1, time_limit_s > 0");
    kernel.timing = {static_cast<int>(*warmup), static_cast<int>(*samples), *limit};
  }
  KGATE_RETURN_IF_ERROR(check_expressions(kernel));
  return kernel;
}

Result<Implementation> Loader::load_implementation(const json& body, const std::string& path,
                                                   const std::string& backend) {
  if (backend != "cuda" && backend != "host")
    return fail(path, "unknown backend '" + backend + "' (expected \"cuda\" or \"host\")");
  if (!body.is_object()) return fail(path, "expected an object");
  KGATE_RETURN_IF_ERROR(
      check_keys(body, path, {"source", "entry", "compile", "launch", "tunables"}));
  Implementation impl;
  impl.backend = backend;
  impl.json_path = path;
  auto source = get_string(body, path, "source", true);
  if (!source.ok()) return source.error();
  KGATE_RETURN_IF_ERROR(check_file(path + ".source", *source));
  impl.source = *source;
  auto entry = get_string(body, path, "entry", true);
  if (!entry.ok()) return entry.error();
  if (auto name = EntryName::parse(*entry); !name.ok())
    return fail(path + ".entry", name.error().message);
  impl.entry = *entry;

  if (auto compile = body.find("compile"); compile != body.end()) {
    std::string cpath = path + ".compile";
    if (!compile->is_object()) return fail(cpath, "expected an object");
    KGATE_RETURN_IF_ERROR(
        check_keys(*compile, cpath, {"compiler", "flags", "include", "allow_fast_math"}));
    auto compiler = get_string(*compile, cpath, "compiler", false);
    if (!compiler.ok()) return compiler.error();
    impl.compile.compiler = *compiler;
    if (backend == "cuda" && !compiler->empty() && *compiler != "nvrtc" && *compiler != "nvcc")
      return fail(cpath + ".compiler", "expected \"nvrtc\" or \"nvcc\", got '" + *compiler + "'");
    for (const char* key : {"flags", "include"}) {
      auto list = compile->find(key);
      if (list == compile->end()) continue;
      if (!list->is_array()) return fail(cpath + "." + key, "expected an array of strings");
      for (size_t i = 0; i < list->size(); ++i) {
        if (!(*list)[i].is_string())
          return fail(cpath + "." + key + "[" + std::to_string(i) + "]", "expected a string");
        (std::string(key) == "flags" ? impl.compile.flags : impl.compile.include)
            .push_back((*list)[i].get<std::string>());
      }
    }
    if (auto fast = compile->find("allow_fast_math"); fast != compile->end()) {
      if (!fast->is_boolean()) return fail(cpath + ".allow_fast_math", "expected true or false");
      impl.compile.allow_fast_math = fast->get<bool>();
    }
  }

  if (auto tunables = body.find("tunables"); tunables != body.end()) {
    if (!tunables->is_object())
      return fail(path + ".tunables", "expected an object of name: [values]");
    for (const auto& [name, values] : tunables->items()) {
      std::string tpath = path + ".tunables." + name;
      if (!std::regex_match(name, std::regex("[A-Za-z_][A-Za-z0-9_]*")))
        return fail(tpath, "a tunable name must be a C identifier");
      if (!values.is_array() || values.empty())
        return fail(tpath, "expected a non-empty array of integers (the first is the default)");
      Tunable tunable{name, {}};
      for (const auto& v : values) {
        if (!v.is_number_integer()) return fail(tpath, "expected integers, got " + type_name(v));
        tunable.values.push_back(v.get<int64_t>());
      }
      impl.tunables.push_back(std::move(tunable));
    }
  }

  auto launch = body.find("launch");
  if (backend == "cuda" && launch == body.end())
    return fail(path + ".launch",
                "missing; a cuda kernel needs {\"grid\": [...], \"block\": [...]}");
  if (launch != body.end()) {
    std::string lpath = path + ".launch";
    if (!launch->is_object()) return fail(lpath, "expected an object");
    KGATE_RETURN_IF_ERROR(check_keys(*launch, lpath, {"grid", "block", "shared_bytes"}));
    for (const char* key : {"grid", "block"}) {
      auto dims = launch->find(key);
      if (dims == launch->end() || !dims->is_array() || dims->empty() || dims->size() > 3)
        return fail(lpath + "." + key, "expected an array of 1 to 3 expressions");
      for (size_t i = 0; i < dims->size(); ++i) {
        auto e = get_expression((*dims)[i], lpath + "." + key + "[" + std::to_string(i) + "]");
        if (!e.ok()) return e.error();
        (std::string(key) == "grid" ? impl.launch.grid : impl.launch.block).push_back(*e);
      }
    }
    if (auto shared = launch->find("shared_bytes"); shared != launch->end()) {
      auto e = get_expression(*shared, lpath + ".shared_bytes");
      if (!e.ok()) return e.error();
      impl.launch.shared_bytes = *e;
    }
  }
  return impl;
}

Result<Arg> Loader::load_arg(const json& a, const std::string& path) {
  if (!a.is_object()) return fail(path, "expected an argument object");
  KGATE_RETURN_IF_ERROR(check_keys(a, path, {"name", "type", "count", "role", "init", "value"}));
  Arg arg;
  arg.json_path = path;
  auto name = get_string(a, path, "name", true);
  if (!name.ok()) return name.error();
  arg.name = *name;
  auto type = get_string(a, path, "type", true);
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
    return fail(path + ".type", "unknown type '" + *type +
                                    "' (expected float32, float16, bfloat16, float64, int32, "
                                    "int64 or uint8, with '*' for a buffer)");
  arg.dtype = *dtype;

  if (arg.is_buffer) {
    if (a.contains("value"))
      return fail(path + ".value", "a buffer takes \"count\", not \"value\"");
    auto count = a.find("count");
    if (count == a.end()) return fail(path + ".count", "missing; a buffer needs an element count");
    auto e = get_expression(*count, path + ".count");
    if (!e.ok()) return e.error();
    arg.count = *e;
    auto role = get_string(a, path, "role", false);
    if (!role.ok()) return role.error();
    if (role->empty() || *role == "input")
      arg.role = ArgRole::kInput;
    else if (*role == "output")
      arg.role = ArgRole::kOutput;
    else if (*role == "inout")
      arg.role = ArgRole::kInOut;
    else
      return fail(path + ".role",
                  "expected \"input\", \"output\" or \"inout\", got '" + *role + "'");
    if (auto init = a.find("init"); init != a.end()) {
      if (arg.role == ArgRole::kOutput)
        return fail(path + ".init", "an output is poisoned, not initialized; remove \"init\"");
      json spec = init->is_string() ? json{{"dist", *init}} : *init;
      if (!spec.is_object()) return fail(path + ".init", "expected a distribution name or object");
      KGATE_RETURN_IF_ERROR(
          check_keys(spec, path + ".init", {"dist", "mean", "std", "low", "high"}));
      auto dist = get_string(spec, path + ".init", "dist", true);
      if (!dist.ok()) return dist.error();
      InitSpec& out = arg.init;
      if (*dist == "normal") {
        out.distribution = InitSpec::Distribution::kNormal;
        auto mean = get_number(spec, path + ".init", "mean", 0.0);
        auto stddev = get_number(spec, path + ".init", "std", 1.0);
        if (!mean.ok()) return mean.error();
        if (!stddev.ok()) return stddev.error();
        if (*stddev <= 0) return fail(path + ".init.std", "expected a positive number");
        out.mean = *mean;
        out.stddev = *stddev;
      } else if (*dist == "uniform") {
        out.distribution = InitSpec::Distribution::kUniform;
        auto low = get_number(spec, path + ".init", "low", -1.0);
        auto high = get_number(spec, path + ".init", "high", 1.0);
        if (!low.ok()) return low.error();
        if (!high.ok()) return high.error();
        if (!(*low < *high)) return fail(path + ".init", "expected low < high");
        out.low = *low;
        out.high = *high;
      } else if (*dist == "randint") {
        if (dtype_is_float(arg.dtype))
          return fail(path + ".init", "randint is for integer buffers");
        out.distribution = InitSpec::Distribution::kRandInt;
        for (const char* key : {"low", "high"}) {
          if (!spec.contains(key))
            return fail(path + ".init." + key,
                        "missing; randint needs low (inclusive) and high (exclusive)");
          auto e = get_expression(spec[key], path + ".init." + key);
          if (!e.ok()) return e.error();
          (std::string(key) == "low" ? out.int_low : out.int_high) = *e;
        }
      } else {
        return fail(path + ".init.dist",
                    "unknown distribution '" + *dist + "' (expected normal, uniform or randint)");
      }
    } else if (!dtype_is_float(arg.dtype) && arg.role != ArgRole::kOutput) {
      return fail(path + ".init",
                  "missing; an integer input buffer needs {\"dist\": \"randint\", \"low\": ..., "
                  "\"high\": ...} so indices stay in range");
    }
  } else {
    if (a.contains("count") || a.contains("role") || a.contains("init"))
      return fail(path, "a scalar takes \"value\" only (add '*' to the type for a buffer)");
    auto value = a.find("value");
    if (value == a.end()) return fail(path + ".value", "missing; a scalar argument needs a value");
    if (dtype_is_float(arg.dtype)) {
      if (value->is_number()) {
        arg.float_value = value->get<double>();
      } else if (value->is_string()) {
        try {
          size_t used = 0;
          arg.float_value = std::stod(value->get<std::string>(), &used);
          if (used != value->get<std::string>().size()) throw std::invalid_argument("tail");
        } catch (const std::exception&) {
          return fail(path + ".value",
                      "expected a number, got \"" + value->get<std::string>() + "\"");
        }
      } else {
        return fail(path + ".value", "expected a number, got " + type_name(*value));
      }
    } else {
      auto e = get_expression(*value, path + ".value");
      if (!e.ok()) return e.error();
      arg.int_value = *e;
    }
  }
  return arg;
}

Result<Shape> Loader::load_shape(const json& s, const std::string& path) {
  if (!s.is_object()) return fail(path, "expected a shape object");
  Shape shape;
  shape.json_path = path;
  auto name = get_string(s, path, "name", true);
  if (!name.ok()) return name.error();
  shape.name = *name;
  auto phase = get_string(s, path, "phase", false);
  if (!phase.ok()) return phase.error();
  shape.phase = phase->empty() ? "any" : *phase;
  for (const auto& [key, value] : s.items()) {
    if (key == "name" || key == "phase") continue;
    if (key == "backends") {
      if (!value.is_array() || value.empty())
        return fail(path + ".backends", "expected a non-empty array of backend names");
      for (const auto& b : value) {
        if (!b.is_string() || (b != "cuda" && b != "host"))
          return fail(path + ".backends", "expected \"cuda\" or \"host\" entries");
        shape.backends.push_back(b.get<std::string>());
      }
      continue;
    }
    if (!value.is_number_integer())
      return fail(path + "." + key, "a shape variable must be an integer, got " + type_name(value));
    if (!std::regex_match(key, std::regex("[A-Za-z_][A-Za-z0-9_]*")))
      return fail(path + "." + key, "a shape variable name must be a C identifier");
    shape.variables[key] = value.get<int64_t>();
  }
  if (shape.variables.empty())
    return fail(path, "a shape needs at least one integer variable (rows, cols, ...)");
  return shape;
}

// Evaluates every expression for every shape with the default tunables, so a
// manifest that loads cannot fail later on an unknown name or a bad count.
Status Loader::check_expressions(const Kernel& kernel) const {
  for (const Implementation& impl : kernel.implementations) {
    for (const Tunable& t : impl.tunables)
      for (const Shape& s : kernel.shapes)
        if (s.variables.count(t.name))
          return fail(impl.json_path + ".tunables." + t.name,
                      "name is also a variable of shape '" + s.name + "'");
    // One compile serves every shape: template arguments cannot follow a shape.
    for (const std::string& n : EntryName::parse(impl.entry)->argument_names())
      for (const Shape& s : kernel.shapes)
        if (s.variables.count(n))
          return fail(impl.json_path + ".entry",
                      "template argument '" + n + "' is a variable of shape '" + s.name +
                          "'; use tunables and constants (one compile serves every shape)");
    for (const Shape& shape : kernel.shapes) {
      Variables vars = kernel.variables(shape, impl.default_tunables());
      auto eval = [&](const Expression& e, const std::string& path, int64_t min) -> Status {
        auto value = e.evaluate(vars);
        if (!value.ok()) return fail(path, value.error().message + " (shape '" + shape.name + "')");
        if (*value < min)
          return fail(path, "evaluates to " + std::to_string(*value) + " for shape '" + shape.name +
                                "'; expected at least " + std::to_string(min));
        return {};
      };
      for (const Arg& arg : kernel.args) {
        if (arg.is_buffer) {
          KGATE_RETURN_IF_ERROR(eval(arg.count, arg.json_path + ".count", 1));
          if (arg.init.distribution == InitSpec::Distribution::kRandInt) {
            KGATE_RETURN_IF_ERROR(eval(arg.init.int_low, arg.json_path + ".init.low", INT64_MIN));
            KGATE_RETURN_IF_ERROR(eval(arg.init.int_high, arg.json_path + ".init.high", INT64_MIN));
          }
        } else if (!dtype_is_float(arg.dtype)) {
          KGATE_RETURN_IF_ERROR(eval(arg.int_value, arg.json_path + ".value", INT64_MIN));
        }
      }
      for (size_t i = 0; i < impl.launch.grid.size(); ++i)
        KGATE_RETURN_IF_ERROR(eval(impl.launch.grid[i],
                                   impl.json_path + ".launch.grid[" + std::to_string(i) + "]", 1));
      for (size_t i = 0; i < impl.launch.block.size(); ++i)
        KGATE_RETURN_IF_ERROR(eval(impl.launch.block[i],
                                   impl.json_path + ".launch.block[" + std::to_string(i) + "]", 1));
      KGATE_RETURN_IF_ERROR(
          eval(impl.launch.shared_bytes, impl.json_path + ".launch.shared_bytes", 0));
    }
  }
  return {};
}

std::string line_and_column(std::string_view text, size_t byte) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return std::to_string(line) + ":" + std::to_string(column);
}

}  // namespace

bool is_sanitizer_tool(std::string_view name) {
  return name == "memcheck" || name == "racecheck" || name == "initcheck" || name == "synccheck";
}

std::optional<std::filesystem::path> find_manifest(const std::filesystem::path& folder) {
  for (const char* candidate : {"kgate.json", ".github/kgate.json"}) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(folder / candidate, ec)) return folder / candidate;
  }
  return std::nullopt;
}

Result<Manifest> parse_manifest(std::string_view text, const std::filesystem::path& display_path,
                                const std::filesystem::path& root) {
  json doc;
  try {
    doc = json::parse(text, nullptr, true, /*ignore_comments=*/true);
  } catch (const json::parse_error& e) {
    // nlohmann reports a byte offset; people read lines and columns.
    std::string what = e.what();
    auto pos = what.find("parse error");
    return Error::bad_input(
        display_path.string() + ":" + line_and_column(text, e.byte - 1) +
        ": invalid JSON: " + (pos == std::string::npos ? what : what.substr(pos)));
  }
  return Loader(display_path, root).load(doc);
}

Result<Manifest> load_manifest(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::path file = path;
  if (std::filesystem::is_directory(path, ec)) {
    auto found = find_manifest(path);
    if (!found)
      return Error::bad_input(path.string() +
                              ": no kgate.json or .github/kgate.json in this folder");
    file = *found;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error::bad_input(file.string() + ": cannot read the manifest (does it exist?)");
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::filesystem::path root = file.parent_path();
  if (root.filename() == ".github") root = root.parent_path();
  if (root.empty()) root = ".";
  return parse_manifest(buffer.str(), file, root);
}

}  // namespace kgate
