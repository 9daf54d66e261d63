#pragma once
// One timing job per GPU per host: an exclusive flock on a lock file named
// after the GPU (its PCI bus id, which names the same GPU in every process
// whatever CUDA_VISIBLE_DEVICES says). The kernel drops the lock when the
// holder exits, crashes or is killed, so a dead kgate never blocks the GPU.
//
// Invariant: while a GpuLock object lives, this process holds the lock.
#include <filesystem>
#include <string>

#include "core/status.h"

namespace kgate {

class GpuLock {
 public:
  // KGATE_LOCK_DIR, else <temp>/kgate-locks.
  static std::filesystem::path default_dir();

  // Blocks until the lock for `device` is free, saying once on stderr who
  // holds it; gives up after `timeout_s` (a negative value waits forever).
  static Result<GpuLock> acquire(const std::string& device, double timeout_s = -1,
                                 const std::filesystem::path& dir = default_dir());
  // Takes the lock only if it is free now.
  static Result<GpuLock> try_acquire(const std::string& device,
                                     const std::filesystem::path& dir = default_dir());

  GpuLock(GpuLock&& other) noexcept;
  GpuLock& operator=(GpuLock&& other) noexcept;
  GpuLock(const GpuLock&) = delete;
  GpuLock& operator=(const GpuLock&) = delete;
  ~GpuLock();

  const std::filesystem::path& path() const { return path_; }

 private:
  GpuLock(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
  int fd_ = -1;
  std::filesystem::path path_;
};

}  // namespace kgate
