#include "core/manifest_loader.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "core/arg_loader.h"
#include "core/argument_plan.h"
#include "core/entry_name.h"
#include "core/gate_policy_loader.h"
#include "core/implementation_loader.h"
#include "core/manifest_reader.h"
#include "core/reference_loader.h"
#include "core/shape_loader.h"
#include "core/tolerance_loader.h"
#include "core/workload_spec.h"

namespace kgate {
namespace {

using json = nlohmann::json;

// Walks the JSON with a path for messages; the sections (args, shapes,
// implementations, the reference, the gate policy) have loaders of their own.
class Loader {
 public:
  Loader(const std::filesystem::path& display_path, std::filesystem::path root)
      : reader_(display_path.string(), std::move(root)), file_(display_path.string()) {}

  Result<Manifest> load(const json& doc);

 private:
  Error fail(const std::string& path, const std::string& what) const {
    return reader_.fail(path, what);
  }
  Status check_keys(const json& object, const std::string& path,
                    std::initializer_list<std::string_view> allowed) const {
    return reader_.check_keys(object, path, allowed);
  }
  Result<std::string> get_string(const json& object, const std::string& path, const char* key,
                                 bool required) const {
    return reader_.get_string(object, path, key, required);
  }
  Result<double> get_number(const json& object, const std::string& path, const char* key,
                            double fallback) const {
    return reader_.get_number(object, path, key, fallback);
  }
  static std::string type_name(const json& j) { return j.type_name(); }

  Result<Kernel> load_kernel(const json& k, const std::string& path);
  Status load_lets(const json& k, const std::string& path, Kernel& kernel) const;
  Status check_expressions(const Kernel& kernel) const;

  ManifestReader reader_;
  std::string file_;
};

// Implementations built from one source with one compile section: one
// compile of the file serves them all (Implementation::siblings).
void link_siblings(Manifest& manifest) {
  auto same_build = [](const Implementation& a, const Implementation& b) {
    return a.backend == b.backend && a.source == b.source &&
           a.compile.compiler == b.compile.compiler && a.compile.flags == b.compile.flags &&
           a.compile.include == b.compile.include &&
           a.compile.allow_fast_math == b.compile.allow_fast_math;
  };
  for (Kernel& kernel : manifest.kernels)
    for (Implementation& impl : kernel.implementations)
      for (const Kernel& other : manifest.kernels)
        for (const Implementation& o : other.implementations)
          if (&o != &impl && same_build(impl, o) && o.entry != impl.entry)
            impl.siblings.push_back({o.entry, o.default_tunables()});
}

Result<Manifest> Loader::load(const json& doc) {
  if (!doc.is_object()) return fail("", "expected a JSON object, got " + type_name(doc));
  KGATE_RETURN_IF_ERROR(check_keys(doc, "", {"$schema", "version", "kernels", "gate", "workload"}));
  Manifest manifest;
  manifest.path = file_;
  manifest.root = reader_.root();
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
  link_siblings(manifest);
  if (auto gate = doc.find("gate"); gate != doc.end()) {
    auto policy = load_gate_policy(reader_, *gate);
    if (!policy.ok()) return policy.error();
    manifest.gate = std::move(policy.value());
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
  KGATE_RETURN_IF_ERROR(check_keys(k, path,
                                   {"name", "family", "backend", "source", "entry", "compile",
                                    "launch", "tunables", "constraints", "impl", "args", "shapes",
                                    "reference", "tolerance", "timing", "description", "let"}));
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
    if (k.contains("constraints"))
      return fail(path + ".constraints",
                  "with \"impl\", constraints go into the implementation whose tunables they read");
    if (!impl->is_object() || impl->empty())
      return fail(path + ".impl", "expected an object keyed by backend (\"cuda\", \"host\")");
    for (const auto& [backend, body] : impl->items()) {
      auto implementation = load_implementation(reader_, body, path + ".impl." + backend, backend);
      if (!implementation.ok()) return implementation.error();
      kernel.implementations.push_back(std::move(implementation.value()));
    }
  } else {
    auto backend = get_string(k, path, "backend", false);
    if (!backend.ok()) return backend.error();
    json flat = json::object();
    for (const char* key : {"source", "entry", "compile", "launch", "tunables", "constraints"})
      if (k.contains(key)) flat[key] = k[key];
    auto implementation =
        load_implementation(reader_, flat, path, backend->empty() ? std::string("cuda") : *backend);
    if (!implementation.ok()) return implementation.error();
    kernel.implementations.push_back(std::move(implementation.value()));
  }

  auto args = k.find("args");
  if (args == k.end() || !args->is_array() || args->empty())
    return fail(path + ".args", "missing; expected a non-empty array of arguments");
  std::set<std::string> arg_names;
  for (size_t i = 0; i < args->size(); ++i) {
    auto arg = load_arg(reader_, (*args)[i], path + ".args[" + std::to_string(i) + "]");
    if (!arg.ok()) return arg.error();
    if (!arg_names.insert(arg->name).second)
      return fail(arg->json_path + ".name", "duplicate argument name '" + arg->name + "'");
    kernel.args.push_back(std::move(arg.value()));
  }
  bool has_output = false;
  for (const Arg* leaf : kernel.leaves())
    has_output |=
        leaf->is_buffer && (leaf->role == ArgRole::kOutput || leaf->role == ArgRole::kInOut);
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
    auto shape = load_shape(reader_, (*shapes)[i], path + ".shapes[" + std::to_string(i) + "]");
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
  auto loaded_reference = load_reference(reader_, *reference, path + ".reference");
  if (!loaded_reference.ok()) return loaded_reference.error();
  kernel.reference = std::move(loaded_reference.value());

  if (auto tolerance = k.find("tolerance"); tolerance != k.end()) {
    auto loaded = load_tolerance(reader_, *tolerance, path + ".tolerance", kernel.tolerance);
    if (!loaded.ok()) return loaded.error();
    kernel.tolerance = *loaded;
  }
  KGATE_RETURN_IF_ERROR(load_lets(k, path, kernel));
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

// Evaluates every expression for every shape with the default tunables, so a
// manifest that loads cannot fail later on an unknown name or a bad count.
// The cuda reference's launch is checked too (it has no tunables).
Status Loader::check_expressions(const Kernel& kernel) const {
  std::vector<const Implementation*> all;
  for (const Implementation& impl : kernel.implementations) all.push_back(&impl);
  if (kernel.reference.cuda) all.push_back(&*kernel.reference.cuda);
  for (const Implementation* each : all) {
    const Implementation& impl = *each;
    for (const Tunable& t : impl.tunables)
      for (const Shape& s : kernel.shapes)
        if (s.variables.count(t.name) || s.float_variables.count(t.name))
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
      auto all_vars = kernel.variables(shape, impl.default_tunables());
      if (!all_vars.ok()) return Error::bad_input(file_ + ": " + all_vars.error().message);
      const Variables& vars = *all_vars;
      auto eval = [&](const Expression& e, const std::string& path, int64_t min) -> Status {
        for (const std::string& n : e.names())
          if (shape.float_variables.count(n) && !vars.count(n))
            return fail(path, "'" + n + "' is a non-integer variable of shape '" + shape.name +
                                  "'; counts, launch dimensions and integer scalars take "
                                  "integer variables (float scalars may name it)");
        auto value = e.evaluate(vars);
        if (!value.ok()) return fail(path, value.error().message + " (shape '" + shape.name + "')");
        if (*value < min) {
          std::string what = "evaluates to " + std::to_string(*value) + " for shape '" +
                             shape.name + "'; expected at least " + std::to_string(min);
          if (min == 1 && *value == 0)
            what +=
                " (a kernel that handles an empty dimension may declare it: \"allow_empty\": "
                "true on the shape)";
          return fail(path, what);
        }
        return {};
      };
      // Zero elements or blocks: only where the shape says the kernel handles it.
      const int64_t least = shape.allow_empty ? 0 : 1;
      for (const Arg* leaf : kernel.leaves()) {
        const Arg& arg = *leaf;
        if (arg.is_buffer) {
          bool null = false;
          if (arg.null_when) {
            KGATE_RETURN_IF_ERROR(eval(*arg.null_when, arg.json_path + ".null", INT64_MIN));
            null = *arg.null_when->evaluate(vars) != 0;
          }
          if (!null) KGATE_RETURN_IF_ERROR(eval(arg.count, arg.json_path + ".count", least));
          if (arg.init.distribution == InitSpec::Distribution::kRandInt) {
            KGATE_RETURN_IF_ERROR(eval(arg.init.int_low, arg.json_path + ".init.low", INT64_MIN));
            KGATE_RETURN_IF_ERROR(eval(arg.init.int_high, arg.json_path + ".init.high", INT64_MIN));
          }
        } else if (!dtype_is_float(arg.dtype)) {
          KGATE_RETURN_IF_ERROR(eval(arg.int_value, arg.json_path + ".value", INT64_MIN));
        } else if (!arg.float_variable.empty() && !shape.number(arg.float_variable)) {
          return fail(arg.json_path + ".value",
                      "shape '" + shape.name + "' has no variable '" + arg.float_variable +
                          "' (a float scalar naming a shape variable needs it in every shape)");
        }
      }
      for (size_t i = 0; i < impl.launch.grid.size(); ++i)
        KGATE_RETURN_IF_ERROR(eval(impl.launch.grid[i],
                                   impl.json_path + ".launch.grid[" + std::to_string(i) + "]",
                                   least));
      for (size_t i = 0; i < impl.launch.block.size(); ++i)
        KGATE_RETURN_IF_ERROR(eval(impl.launch.block[i],
                                   impl.json_path + ".launch.block[" + std::to_string(i) + "]", 1));
      KGATE_RETURN_IF_ERROR(
          eval(impl.launch.shared_bytes, impl.json_path + ".launch.shared_bytes", 0));
      // What the run checks beyond the expressions (randint ranges, given
      // contents, values that fit their type): the run's own planner.
      auto planned = plan_arguments(kernel, shape, vars);
      if (!planned.ok()) return Error::bad_input(file_ + ": " + planned.error().message);
      if (std::none_of(planned->args.begin(), planned->args.end(),
                       [](const ArgPlan& a) { return a.compared(); }))
        return fail(kernel.json_path + ".args",
                    "shape '" + shape.name + "' passes every output as NULL: nothing to check");
    }
  }
  for (const Shape& shape : kernel.shapes)
    if (shape.variables.count("i"))
      for (const Arg* leaf : kernel.leaves())
        if (leaf->init.distribution == InitSpec::Distribution::kFormula)
          return fail(shape.json_path, "a shape variable named 'i' hides the element index of " +
                                           leaf->json_path + ".init.formula; rename it");
  return {};
}

// "let": {"name": "expression", ...}: each name may read the shape's
// variables, the tunables and the other lets; kept in an order where each
// comes after those it reads.
Status Loader::load_lets(const json& k, const std::string& path, Kernel& kernel) const {
  auto lets = k.find("let");
  if (lets == k.end()) return {};
  if (!lets->is_object()) return fail(path + ".let", "expected an object of names and expressions");
  std::map<std::string, LetValue> pending;
  for (const auto& [name, value] : lets->items()) {
    const std::string at = path + ".let." + name;
    if (!std::regex_match(name, std::regex("[A-Za-z_][A-Za-z0-9_]*")) || name == "i")
      return fail(at, "'" + name + "' is not a name a let can have (letters, digits, _; not i)");
    for (const Shape& s : kernel.shapes)
      if (s.variables.count(name) || s.float_variables.count(name))
        return fail(at, "'" + name + "' is also a variable of shape '" + s.name + "'");
    for (const Implementation& impl : kernel.implementations)
      for (const Tunable& t : impl.tunables)
        if (t.name == name)
          return fail(at, "'" + name + "' is also a tunable of " + impl.json_path);
    auto e = reader_.get_expression(value, at);
    if (!e.ok()) return e.error();
    pending[name] = LetValue{name, *e, at};
  }
  while (!pending.empty()) {
    bool progressed = false;
    for (auto it = pending.begin(); it != pending.end();) {
      bool ready = true;
      for (const std::string& n : it->second.expression.names())
        ready &= !pending.count(n) || n == it->first;
      if (ready && !it->second.expression.names().count(it->first)) {
        kernel.lets.push_back(std::move(it->second));
        it = pending.erase(it);
        progressed = true;
      } else {
        ++it;
      }
    }
    if (!progressed)
      return fail(pending.begin()->second.json_path,
                  "reads itself through the other lets (a cycle): " +
                      pending.begin()->second.expression.text());
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
