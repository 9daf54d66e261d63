#pragma once
// Which kernels a change between two revisions touches: those whose source,
// headers it includes (transitively, #include "..." relative to the file and
// to the kernel's include folders), reference, or manifest entry changed.
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/manifest.h"

namespace kgate {

// Files the build of `kernel` on `backend` reads, relative to the manifest's
// folder ('/'-separated): the implementation source, the headers it includes
// that exist under the manifest's folder, and the reference source.
std::set<std::string> kernel_input_files(const Manifest& manifest, const Kernel& kernel,
                                         const std::string& backend);

struct KernelChange {
  std::string kernel;
  std::string why;  // "host/rmsnorm.cpp changed", "manifest entry changed", "new kernel", "--all"
  bool is_new = false;  // absent from the base revision
};

// `changed` holds repository-relative paths; `manifest_dir` is the manifest's
// folder relative to the repository root ("" at the root).
std::vector<KernelChange> changed_kernels(const Manifest* base, const Manifest& head,
                                          const std::string& backend,
                                          const std::set<std::string>& changed,
                                          const std::string& manifest_dir, bool all);

}  // namespace kgate
