#pragma once
// On-disk cache of compiled programs, keyed by a hash of everything that
// shapes the output (source, included headers, flags, architecture, compiler
// version). A hit skips the compiler entirely.
#include <filesystem>
#include <optional>
#include <string>

#include "runner/program.h"

namespace kgate {

class CompileCache {
 public:
  // KGATE_CACHE_DIR, else $XDG_CACHE_HOME/kgate, else ~/.cache/kgate.
  static std::filesystem::path default_dir();
  explicit CompileCache(std::filesystem::path dir = default_dir()) : dir_(std::move(dir)) {}

  // Where the artifact for `key` lives (whether or not it exists yet).
  std::filesystem::path artifact_path(const std::string& key, const std::string& extension) const;
  // The program stored under `key`, if its artifact and record are present.
  std::optional<Program> lookup(const std::string& key, const std::string& extension) const;
  // Records metadata for an artifact already written to artifact_path(),
  // under program.cache_key. An artifact that serves several programs (one
  // module, many entries) lives under its own key, `artifact_key`; each
  // program's record names it.
  void store(const Program& program, const std::string& artifact_key = "") const;
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

}  // namespace kgate
