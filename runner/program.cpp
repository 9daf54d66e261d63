#include "runner/program.h"

namespace kgate {

nlohmann::json ResourceReport::to_json() const {
  return {{"registers", registers},
          {"spill_store_bytes", spill_store_bytes},
          {"spill_load_bytes", spill_load_bytes},
          {"shared_bytes", shared_bytes},
          {"stack_bytes", stack_bytes},
          {"local_bytes", local_bytes},
          {"max_threads_per_block", max_threads_per_block}};
}

ResourceReport ResourceReport::from_json(const nlohmann::json& j) {
  ResourceReport r;
  r.registers = j.value("registers", -1);
  r.spill_store_bytes = j.value("spill_store_bytes", -1);
  r.spill_load_bytes = j.value("spill_load_bytes", -1);
  r.shared_bytes = j.value("shared_bytes", -1);
  r.stack_bytes = j.value("stack_bytes", -1);
  r.local_bytes = j.value("local_bytes", -1);
  r.max_threads_per_block = j.value("max_threads_per_block", -1);
  return r;
}

nlohmann::json CompileDiagnostic::to_json() const {
  return {{"file", file}, {"line", line}, {"column", column}, {"kind", kind}, {"message", message}};
}

nlohmann::json Program::to_json() const {
  nlohmann::json t = nlohmann::json::object();
  for (const auto& [k, v] : tunables) t[k] = v;
  return {{"backend", backend},
          {"entry", entry},
          {"cache_key", cache_key},
          {"tunables", t},
          {"resources", resources.to_json()},
          {"compile_seconds", compile_seconds},
          {"notes", notes},
          {"param_sizes", param_sizes},
          {"from_cache", from_cache}};
}

std::string CompileOutcome::digest(size_t max_lines) const {
  std::string out;
  size_t lines = 0;
  for (const CompileDiagnostic& d : diagnostics) {
    if (d.kind == "note" || d.kind == "warning") continue;
    if (lines++ >= max_lines) break;
    out += d.file + ":" + std::to_string(d.line) + ": " + d.kind + ": " + d.message + "\n";
  }
  if (out.empty()) {
    // No structured errors: keep the log's last lines.
    std::vector<std::string> all;
    size_t start = 0;
    while (start < log.size()) {
      size_t end = log.find('\n', start);
      if (end == std::string::npos) end = log.size();
      all.push_back(log.substr(start, end - start));
      start = end + 1;
    }
    size_t first = all.size() > max_lines ? all.size() - max_lines : 0;
    for (size_t i = first; i < all.size(); ++i) out += all[i] + "\n";
  }
  return out;
}

}  // namespace kgate
