#include "core/implementation_loader.h"

#include <regex>

#include "core/entry_name.h"
#include "core/tunable_role.h"

namespace kgate {

using json = nlohmann::json;

namespace {

// "BLOCK": [256, 128] or "BM": {"values": [64, 128], "role": "tile_rows"}.
Result<Tunable> load_tunable(const ManifestReader& reader, const std::string& name,
                             const json& declared, const std::string& path) {
  if (!std::regex_match(name, std::regex("[A-Za-z_][A-Za-z0-9_]*")))
    return reader.fail(path, "a tunable name must be a C identifier");
  Tunable tunable{name, {}, {}};
  const json* values = &declared;
  if (declared.is_object()) {
    KGATE_RETURN_IF_ERROR(reader.check_keys(declared, path, {"values", "role"}));
    auto v = declared.find("values");
    if (v == declared.end())
      return reader.fail(path + ".values", "missing; expected [values] (the first is the default)");
    values = &*v;
    if (auto role = declared.find("role"); role != declared.end()) {
      if (!role->is_string() || !is_tunable_role(role->get<std::string>()))
        return reader.fail(path + ".role",
                           "expected one of " + tunable_roles_text() + ", got " + role->dump());
      tunable.role = role->get<std::string>();
    }
  }
  if (!values->is_array() || values->empty())
    return reader.fail(path,
                       "expected a non-empty array of integers (the first is the default) "
                       "or {\"values\": [...], \"role\": \"...\"}");
  for (const auto& v : *values) {
    if (!v.is_number_integer())
      return reader.fail(path, "expected integers, got " + std::string(v.type_name()));
    tunable.values.push_back(v.get<int64_t>());
  }
  return tunable;
}

// Expressions over the tunables only (one compile serves every shape), each
// met by the defaults: a manifest whose defaults are invalid would build a
// kernel its author says cannot work.
Result<std::vector<TunableConstraint>> load_constraints(const ManifestReader& reader,
                                                        const json& list, const std::string& path,
                                                        const Implementation& impl) {
  if (!list.is_array())
    return reader.fail(path,
                       "expected an array of expressions over the tunables (\"BM % TM == 0\")");
  std::vector<TunableConstraint> out;
  Variables defaults = impl.default_tunables();
  for (size_t i = 0; i < list.size(); ++i) {
    std::string cpath = path + "[" + std::to_string(i) + "]";
    if (!list[i].is_string())
      return reader.fail(
          cpath, "expected an expression as a string, got " + std::string(list[i].type_name()));
    auto expression = reader.get_expression(list[i], cpath);
    if (!expression.ok()) return expression.error();
    for (const std::string& n : expression->names())
      if (!defaults.count(n))
        return reader.fail(cpath, "'" + n + "' is not a tunable of this implementation; a " +
                                      "constraint reads tunables only");
    auto holds = expression->evaluate(defaults);
    if (!holds.ok()) return reader.fail(cpath, holds.error().message + " (the default tunables)");
    if (*holds == 0) {
      std::string settings;
      for (const std::string& n : expression->names())
        settings += (settings.empty() ? "" : " ") + n + "=" + std::to_string(defaults[n]);
      return reader.fail(cpath, "the default tunables (" + settings +
                                    ", the first of each list) violate the constraint \"" +
                                    expression->text() + "\"");
    }
    out.push_back({std::move(expression.value()), cpath});
  }
  return out;
}

}  // namespace

Result<Implementation> load_implementation(const ManifestReader& reader, const json& body,
                                           const std::string& path, const std::string& backend,
                                           ImplementationUse use) {
  if (backend != "cuda" && backend != "host")
    return reader.fail(path, "unknown backend '" + backend + "' (expected \"cuda\" or \"host\")");
  if (!body.is_object()) return reader.fail(path, "expected an object");
  if (use == ImplementationUse::kReference) {
    KGATE_RETURN_IF_ERROR(reader.check_keys(body, path, {"source", "entry", "compile", "launch"}));
  } else {
    KGATE_RETURN_IF_ERROR(reader.check_keys(
        body, path, {"source", "entry", "compile", "launch", "tunables", "constraints"}));
  }
  Implementation impl;
  impl.backend = backend;
  impl.json_path = path;
  auto source = reader.get_string(body, path, "source", true);
  if (!source.ok()) return source.error();
  KGATE_RETURN_IF_ERROR(reader.check_file(path + ".source", *source));
  impl.source = *source;
  auto entry = reader.get_string(body, path, "entry", true);
  if (!entry.ok()) return entry.error();
  if (auto name = EntryName::parse(*entry); !name.ok())
    return reader.fail(path + ".entry", name.error().message);
  impl.entry = *entry;

  if (auto compile = body.find("compile"); compile != body.end()) {
    std::string cpath = path + ".compile";
    if (!compile->is_object()) return reader.fail(cpath, "expected an object");
    KGATE_RETURN_IF_ERROR(
        reader.check_keys(*compile, cpath, {"compiler", "flags", "include", "allow_fast_math"}));
    auto compiler = reader.get_string(*compile, cpath, "compiler", false);
    if (!compiler.ok()) return compiler.error();
    impl.compile.compiler = *compiler;
    if (backend == "cuda" && !compiler->empty() && *compiler != "nvrtc" && *compiler != "nvcc")
      return reader.fail(cpath + ".compiler",
                         "expected \"nvrtc\" or \"nvcc\", got '" + *compiler + "'");
    for (const char* key : {"flags", "include"}) {
      auto list = compile->find(key);
      if (list == compile->end()) continue;
      if (!list->is_array()) return reader.fail(cpath + "." + key, "expected an array of strings");
      for (size_t i = 0; i < list->size(); ++i) {
        if (!(*list)[i].is_string())
          return reader.fail(cpath + "." + key + "[" + std::to_string(i) + "]",
                             "expected a string");
        (std::string(key) == "flags" ? impl.compile.flags : impl.compile.include)
            .push_back((*list)[i].get<std::string>());
      }
    }
    if (auto fast = compile->find("allow_fast_math"); fast != compile->end()) {
      if (!fast->is_boolean())
        return reader.fail(cpath + ".allow_fast_math", "expected true or false");
      impl.compile.allow_fast_math = fast->get<bool>();
    }
  }

  if (auto tunables = body.find("tunables"); tunables != body.end()) {
    if (!tunables->is_object())
      return reader.fail(path + ".tunables", "expected an object of name: [values]");
    for (const auto& [name, declared] : tunables->items()) {
      auto tunable = load_tunable(reader, name, declared, path + ".tunables." + name);
      if (!tunable.ok()) return tunable.error();
      impl.tunables.push_back(std::move(tunable.value()));
    }
  }
  if (auto constraints = body.find("constraints"); constraints != body.end()) {
    auto loaded = load_constraints(reader, *constraints, path + ".constraints", impl);
    if (!loaded.ok()) return loaded.error();
    impl.constraints = std::move(loaded.value());
  }

  auto launch = body.find("launch");
  if (backend == "cuda" && launch == body.end())
    return reader.fail(path + ".launch",
                       "missing; a cuda kernel needs {\"grid\": [...], \"block\": [...]}");
  if (launch != body.end()) {
    std::string lpath = path + ".launch";
    if (!launch->is_object()) return reader.fail(lpath, "expected an object");
    KGATE_RETURN_IF_ERROR(reader.check_keys(*launch, lpath, {"grid", "block", "shared_bytes"}));
    for (const char* key : {"grid", "block"}) {
      auto dims = launch->find(key);
      if (dims == launch->end() || !dims->is_array() || dims->empty() || dims->size() > 3)
        return reader.fail(lpath + "." + key, "expected an array of 1 to 3 expressions");
      for (size_t i = 0; i < dims->size(); ++i) {
        auto e =
            reader.get_expression((*dims)[i], lpath + "." + key + "[" + std::to_string(i) + "]");
        if (!e.ok()) return e.error();
        (std::string(key) == "grid" ? impl.launch.grid : impl.launch.block).push_back(*e);
      }
    }
    if (auto shared = launch->find("shared_bytes"); shared != launch->end()) {
      auto e = reader.get_expression(*shared, lpath + ".shared_bytes");
      if (!e.ok()) return e.error();
      impl.launch.shared_bytes = *e;
    }
  }
  return impl;
}

}  // namespace kgate
