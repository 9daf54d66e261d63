#include "webhooks/kernel_files.h"

#include <set>

#include "core/manifest_loader.h"

namespace kgate::webhooks {

namespace {
std::string relative_to(const std::filesystem::path& file, const std::filesystem::path& repo) {
  std::error_code ec;
  auto base = std::filesystem::weakly_canonical(repo, ec);
  auto full = std::filesystem::weakly_canonical(file, ec);
  return full.lexically_relative(base).generic_string();
}
}  // namespace

RepositoryKernels read_repository_kernels(const std::filesystem::path& repo) {
  RepositoryKernels out;
  auto file = find_manifest(repo);
  if (!file) {
    out.error = "no kgate.json in " + repo.string();
    return out;
  }
  out.manifest_file = relative_to(*file, repo);
  auto manifest = load_manifest(*file);
  if (!manifest.ok()) {
    out.error = manifest.error().message;
    return out;
  }
  for (const Kernel& kernel : manifest->kernels) {
    std::set<std::string> files;
    for (const Implementation& impl : kernel.implementations)
      if (!impl.source.empty()) files.insert(relative_to(manifest->root / impl.source, repo));
    if (!kernel.reference.source.empty())
      files.insert(relative_to(manifest->root / kernel.reference.source, repo));
    out.kernels.push_back({kernel.name, {files.begin(), files.end()}});
  }
  return out;
}

std::shared_ptr<const RepositoryKernels> KernelFilesCache::get() {
  std::lock_guard lock(mutex_);
  auto file = find_manifest(repo_);
  std::error_code ec;
  std::filesystem::file_time_type stamp{};
  if (file) stamp = std::filesystem::last_write_time(*file, ec);
  std::filesystem::path path = file.value_or("");
  if (!current_ || stamp != seen_ || path != seen_path_) {
    current_ = std::make_shared<RepositoryKernels>(read_repository_kernels(repo_));
    seen_ = stamp;
    seen_path_ = path;
  }
  return current_;
}

}  // namespace kgate::webhooks
