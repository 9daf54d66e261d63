#pragma once
// Helpers shared by the test suites: temporary folders, running the kgate
// binary, writing files.
#include <filesystem>
#include <string>
#include <vector>

#include "core/subprocess.h"

namespace kgate::testing {

// A fresh folder under the system temp dir, removed when the object dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

void write(const std::filesystem::path& path, const std::string& content);
std::string read(const std::filesystem::path& path);

// The kgate executable the suites run: KGATE_TEST_BINARY, else the build's.
std::string kgate_binary();

// Runs the built kgate binary with `args`; a private compile cache per test run.
CommandOutcome run_kgate(const std::vector<std::string>& args, const std::string& cwd = "",
                         double timeout_s = 300);

// Points KGATE_CACHE_DIR at a compile cache of this test process's own, so
// its tests compile for real instead of reading another run's results.
void use_private_compile_cache();

std::filesystem::path source_dir();
std::filesystem::path example_dir();  // examples/llm-ops
// tests/fixtures, under KGATE_TEST_SOURCE_DIR when set (a copied tree on the
// GPU machine, where the build's absolute paths do not exist).
std::filesystem::path fixtures_dir();

}  // namespace kgate::testing
