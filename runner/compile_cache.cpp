#include "runner/compile_cache.h"

#include <cstdlib>
#include <fstream>

#include "core/file_util.h"

namespace kgate {

std::filesystem::path CompileCache::default_dir() {
  if (const char* dir = std::getenv("KGATE_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::filesystem::path(xdg) / "kgate";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".cache" / "kgate";
  return std::filesystem::temp_directory_path() / "kgate-cache";
}

std::filesystem::path CompileCache::artifact_path(const std::string& key,
                                                  const std::string& extension) const {
  return dir_ / key.substr(0, 2) / (key + extension);
}

std::optional<Program> CompileCache::lookup(const std::string& key,
                                            const std::string& extension) const {
  auto record = artifact_path(key, extension);
  record += ".json";
  std::error_code ec;
  if (!std::filesystem::exists(record, ec)) return std::nullopt;
  auto text = read_file(record);
  if (!text.ok()) return std::nullopt;
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  const std::string artifact_key = j.value("artifact_key", key);
  if (artifact_key.size() < 2) return std::nullopt;
  auto artifact = artifact_path(artifact_key, extension);
  if (!std::filesystem::exists(artifact, ec)) return std::nullopt;
  Program program;
  program.backend = j.value("backend", "");
  program.entry = j.value("entry", "");
  program.artifact = artifact;
  program.cache_key = key;
  program.resources = ResourceReport::from_json(j.value("resources", nlohmann::json::object()));
  program.log = j.value("log", "");
  if (auto sizes = j.find("param_sizes"); sizes != j.end() && sizes->is_array())
    for (const auto& n : *sizes)
      if (n.is_number_unsigned()) program.param_sizes.push_back(n.get<size_t>());
  if (auto notes = j.find("notes"); notes != j.end() && notes->is_array())
    for (const auto& n : *notes)
      if (n.is_string()) program.notes.push_back(n.get<std::string>());
  program.from_cache = true;
  nlohmann::json tunables = j.value("tunables", nlohmann::json::object());
  for (const auto& [k, v] : tunables.items()) program.tunables[k] = v.get<int64_t>();
  return program;
}

void CompileCache::store(const Program& program, const std::string& artifact_key) const {
  nlohmann::json j = program.to_json();
  j["log"] = program.log;
  if (!artifact_key.empty()) j["artifact_key"] = artifact_key;
  auto record = artifact_path(program.cache_key, program.artifact.extension().string());
  record += ".json";
  std::error_code ec;
  std::filesystem::create_directories(record.parent_path(), ec);
  (void)write_file_atomic(record, j.dump());
}

}  // namespace kgate
