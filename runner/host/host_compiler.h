#pragma once
// Builds host C++ (kernels and references) into shared objects with the
// system compiler, through the compile cache.
#include <string>
#include <vector>

#include "core/manifest.h"
#include "core/status.h"
#include "runner/compile_cache.h"
#include "runner/host/trampoline.h"
#include "runner/program.h"

namespace kgate {

struct HostBuild {
  const Kernel* kernel = nullptr;
  std::string entry;
  std::filesystem::path source_path;       // the file as it sits in the repository
  std::optional<std::string> source_text;  // replaces the file's content (candidates)
  std::filesystem::path root;              // manifest folder, for includes
  std::vector<std::string> includes;       // relative to root
  std::vector<std::string> flags;
  Variables defines;  // -DNAME=value
  TrampolineFor purpose = TrampolineFor::kKernel;
};

class HostCompiler {
 public:
  explicit HostCompiler(CompileCache cache = CompileCache()) : cache_(std::move(cache)) {}
  // CXX from the environment, else c++.
  static std::string compiler_command();
  Result<CompileOutcome> build(const HostBuild& build);

 private:
  Result<std::string> compiler_identity();

  CompileCache cache_;
  std::string identity_;
};

}  // namespace kgate
