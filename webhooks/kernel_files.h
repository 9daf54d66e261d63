#pragma once
// Which files belong to which kernel, from the repository's kgate.json: the
// sources of every implementation and the reference. Re-read when the
// manifest file changes on disk, so a long-running service follows the
// checkout it serves.
#include <filesystem>
#include <memory>
#include <mutex>

#include "core/status.h"
#include "webhooks/router.h"

namespace kgate::webhooks {

struct RepositoryKernels {
  std::vector<KernelFiles> kernels;
  std::string manifest_file;  // relative to the repository root ("kgate.json")
  std::string error;          // why the manifest could not be read (no kernels then)
};

// Reads the manifest of the repository at `repo`.
RepositoryKernels read_repository_kernels(const std::filesystem::path& repo);

class KernelFilesCache {
 public:
  explicit KernelFilesCache(std::filesystem::path repo) : repo_(std::move(repo)) {}
  // The current snapshot, re-read if the manifest's modification time changed.
  std::shared_ptr<const RepositoryKernels> get();

 private:
  std::filesystem::path repo_;
  std::mutex mutex_;
  std::filesystem::file_time_type seen_{};
  std::filesystem::path seen_path_;
  std::shared_ptr<const RepositoryKernels> current_;
};

}  // namespace kgate::webhooks
