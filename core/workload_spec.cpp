#include "core/workload_spec.h"

#include <set>

namespace kgate {
namespace {

using json = nlohmann::json;

Error bad(const std::string& file, const std::string& path, const std::string& what) {
  return Error::bad_input(file + ": workload" + path + ": " + what);
}

Result<std::string> string_field(const json& j, const char* key, bool required,
                                 const std::string& file) {
  auto it = j.find(key);
  if (it == j.end()) {
    if (required) return bad(file, "", std::string("missing \"") + key + "\" (a string)");
    return std::string();
  }
  if (!it->is_string() || (required && it->get<std::string>().empty()))
    return bad(file, std::string(".") + key, "expected a non-empty string");
  return it->get<std::string>();
}

Result<double> number_field(const json& j, const char* key, double fallback, double lo, double hi,
                            const std::string& file, const std::string& path) {
  auto it = j.find(key);
  if (it == j.end()) return fallback;
  if (!it->is_number() || it->get<double>() < lo || it->get<double>() > hi)
    return bad(file, path + "." + key,
               "expected a number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return it->get<double>();
}

}  // namespace

Result<WorkloadSpec> parse_workload_spec(const json& section, const std::string& file) {
  if (!section.is_object()) return bad(file, "", "expected an object");
  static const std::set<std::string> known = {
      "build",   "command", "output",           "phases",    "phases_from", "compare",
      "latency", "runs",    "sanitize_command", "timeout_s", "confidence",  "max_regression"};
  for (const auto& [key, _] : section.items())
    if (!known.count(key))
      return bad(file, "",
                 "unknown key '" + key +
                     "' (expected build, command, output, phases, phases_from, compare, latency, "
                     "runs, sanitize_command, timeout_s, confidence, max_regression)");
  WorkloadSpec spec;
  auto s = string_field(section, "build", false, file);
  if (!s.ok()) return s.error();
  spec.build = *s;
  if (s = string_field(section, "command", true, file); !s.ok()) return s.error();
  spec.command = *s;
  if (s = string_field(section, "output", true, file); !s.ok()) return s.error();
  spec.output = *s;
  if (s = string_field(section, "latency", false, file); !s.ok()) return s.error();
  spec.latency = *s;
  if (s = string_field(section, "sanitize_command", false, file); !s.ok()) return s.error();
  spec.sanitize_command = *s;
  if (auto it = section.find("phases_from");
      it != section.end() && (!it->is_string() || *it != "nvtx"))
    return bad(file, ".phases_from", "expected \"nvtx\" (phases are NVTX range names)");
  if (auto it = section.find("phases"); it != section.end()) {
    if (!it->is_array() || it->empty())
      return bad(file, ".phases", "expected a non-empty array of NVTX range names");
    spec.phases.clear();
    for (const json& p : *it) {
      if (!p.is_string() || p.get<std::string>().empty())
        return bad(file, ".phases", "expected non-empty strings");
      spec.phases.push_back(p);
    }
  }
  if (auto it = section.find("compare"); it != section.end()) {
    if (!it->is_array()) return bad(file, ".compare", "expected an array of comparisons");
    for (size_t i = 0; i < it->size(); ++i) {
      const json& c = (*it)[i];
      std::string path = ".compare[" + std::to_string(i) + "]";
      if (!c.is_object() || !c.contains("field") || !c["field"].is_string())
        return bad(file, path, "expected {\"field\": NAME, \"rule\": \"equal\" | \"close\", ...}");
      for (const auto& [key, _] : c.items())
        if (key != "field" && key != "rule" && key != "atol" && key != "rtol")
          return bad(file, path, "unknown key '" + key + "' (expected field, rule, atol, rtol)");
      OutputComparison cmp;
      cmp.field = c["field"];
      cmp.rule = c.value("rule", c.contains("atol") || c.contains("rtol") ? "close" : "equal");
      if (cmp.rule != "equal" && cmp.rule != "close")
        return bad(file, path + ".rule", "expected \"equal\" or \"close\", got '" + cmp.rule + "'");
      auto atol = number_field(c, "atol", 0, 0, 1e30, file, path);
      if (!atol.ok()) return atol.error();
      auto rtol = number_field(c, "rtol", 0, 0, 1e30, file, path);
      if (!rtol.ok()) return rtol.error();
      cmp.atol = *atol, cmp.rtol = *rtol;
      spec.compare.push_back(cmp);
    }
  }
  auto runs = number_field(section, "runs", spec.runs, 2, 1000, file, "");
  if (!runs.ok()) return runs.error();
  spec.runs = int(*runs);
  auto timeout = number_field(section, "timeout_s", spec.timeout_s, 1, 86400, file, "");
  if (!timeout.ok()) return timeout.error();
  spec.timeout_s = *timeout;
  if (section.contains("confidence")) {
    auto c = number_field(section, "confidence", 0.95, 0.5, 0.9999, file, "");
    if (!c.ok()) return c.error();
    spec.confidence = *c;
  }
  if (section.contains("max_regression")) {
    auto m = number_field(section, "max_regression", 0.03, 0, 10, file, "");
    if (!m.ok()) return m.error();
    spec.max_regression = *m;
  }
  return spec;
}

std::optional<WorkloadSpec> workload_spec(const Manifest& manifest) {
  if (manifest.workload.is_null()) return std::nullopt;
  auto spec = parse_workload_spec(manifest.workload, manifest.path.string());
  if (!spec.ok()) return std::nullopt;
  return std::move(spec.value());
}

std::string expand_output(const std::string& command, const std::string& output_path) {
  std::string out = command;
  const std::string key = "{output}";
  for (size_t at = out.find(key); at != std::string::npos;
       at = out.find(key, at + output_path.size()))
    out.replace(at, key.size(), output_path);
  return out;
}

}  // namespace kgate
