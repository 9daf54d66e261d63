#include "support/test_support.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

namespace kgate::testing {

TempDir::TempDir() {
  std::random_device rd;
  path_ = std::filesystem::temp_directory_path() /
          ("kgate-test-" + std::to_string(getpid()) + "-" + std::to_string(rd()));
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

void write(const std::filesystem::path& path, const std::string& content) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << content;
}

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string kgate_binary() {
  // KGATE_TEST_BINARY / KGATE_TEST_SOURCE_DIR let the suites run from a copied
  // tree (the GPU machine), where the build's absolute paths do not exist.
  const char* binary = std::getenv("KGATE_TEST_BINARY");
  return binary && *binary ? binary : KGATE_BINARY;
}

CommandOutcome run_kgate(const std::vector<std::string>& args, const std::string& cwd,
                         double timeout_s) {
  std::vector<std::string> argv = {kgate_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  CommandOptions options;
  options.cwd = cwd;
  options.timeout_s = timeout_s;
  auto outcome = run_command(argv, options);
  if (!outcome.ok()) {
    CommandOutcome failed;
    failed.err = outcome.error().message;
    return failed;
  }
  return *outcome;
}

std::filesystem::path source_dir() {
  const char* dir = std::getenv("KGATE_TEST_SOURCE_DIR");
  return dir && *dir ? dir : KGATE_SOURCE_DIR;
}
void use_private_compile_cache() {
  const auto dir =
      std::filesystem::temp_directory_path() / ("kgate-test-cache-" + std::to_string(getpid()));
  setenv("KGATE_CACHE_DIR", dir.c_str(), 1);
}

std::filesystem::path example_dir() {
  return source_dir() / "examples" / "llm-ops";
}

std::filesystem::path fixtures_dir() {
  const char* dir = std::getenv("KGATE_TEST_SOURCE_DIR");
  return dir && *dir ? std::filesystem::path(dir) / "tests" / "fixtures"
                     : std::filesystem::path(KGATE_TEST_FIXTURES);
}

}  // namespace kgate::testing
