#include "gate/kernel_changes.h"

#include <fstream>
#include <regex>
#include <sstream>

namespace kgate {
namespace {

std::string normal(const std::filesystem::path& p) {
  return p.lexically_normal().generic_string();
}

void scan_includes(const std::filesystem::path& root, const std::string& file,
                   const std::vector<std::string>& include_dirs, std::set<std::string>& seen) {
  if (!seen.insert(file).second) return;
  std::ifstream in(root / file);
  if (!in) return;
  static const std::regex include_line(R"(^\s*#\s*include\s*\"([^\"]+)\")");
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_search(line, m, include_line)) continue;
    std::vector<std::filesystem::path> candidates = {std::filesystem::path(file).parent_path() /
                                                     m[1].str()};
    for (const std::string& dir : include_dirs)
      candidates.push_back(std::filesystem::path(dir) / m[1].str());
    for (const auto& c : candidates) {
      std::string rel = normal(c);
      if (rel.starts_with("..")) continue;  // outside the repository's manifest folder
      if (std::filesystem::is_regular_file(root / rel)) {
        scan_includes(root, rel, include_dirs, seen);
        break;
      }
    }
  }
}

}  // namespace

std::set<std::string> kernel_input_files(const Manifest& manifest, const Kernel& kernel,
                                         const std::string& backend) {
  std::set<std::string> files;
  for (const Implementation& impl : kernel.implementations) {
    if (!backend.empty() && impl.backend != backend) continue;
    scan_includes(manifest.root, normal(impl.source), impl.compile.include, files);
  }
  if (!kernel.reference.source.empty())
    scan_includes(manifest.root, normal(kernel.reference.source), {}, files);
  // The reference kernel judges large shapes on its backend.
  if (const auto& ref = kernel.reference.cuda; ref && (backend.empty() || ref->backend == backend))
    scan_includes(manifest.root, normal(ref->source), ref->compile.include, files);
  return files;
}

std::vector<KernelChange> changed_kernels(const Manifest* base, const Manifest& head,
                                          const std::string& backend,
                                          const std::set<std::string>& changed,
                                          const std::string& manifest_dir, bool all) {
  std::vector<KernelChange> out;
  auto repo_path = [&](const std::string& rel) {
    return manifest_dir.empty() ? rel : normal(std::filesystem::path(manifest_dir) / rel);
  };
  for (const Kernel& kernel : head.kernels) {
    const Kernel* before = base ? base->kernel(kernel.name) : nullptr;
    if (!before) {
      out.push_back({kernel.name, "new kernel", true});
      continue;
    }
    if (all) {
      out.push_back({kernel.name, "--all", false});
      continue;
    }
    if (before->raw != kernel.raw) {
      out.push_back({kernel.name, "manifest entry changed", false});
      continue;
    }
    // Inputs of both revisions: a header dropped by head counts as changed too.
    std::set<std::string> inputs = kernel_input_files(head, kernel, backend);
    for (const std::string& f : kernel_input_files(*base, *before, backend)) inputs.insert(f);
    for (const std::string& f : inputs) {
      if (changed.count(repo_path(f))) {
        out.push_back({kernel.name, f + " changed", false});
        break;
      }
    }
  }
  return out;
}

}  // namespace kgate
