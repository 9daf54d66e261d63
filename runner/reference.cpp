#include "runner/reference.h"

#include "runner/host/host_compiler.h"

namespace kgate {

Result<CompileOutcome> build_reference(const Kernel& kernel, const std::filesystem::path& root) {
  HostBuild build;
  build.kernel = &kernel;
  build.entry = kernel.reference.entry;
  build.source_path = kernel.reference.source;
  build.root = root;
  build.purpose = TrampolineFor::kReference;
  HostCompiler compiler;
  return compiler.build(build);
}

}  // namespace kgate
