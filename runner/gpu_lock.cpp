#include "runner/gpu_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "core/log.h"

namespace kgate {
namespace {

// "0000:18:00.0" -> "gpu-0000-18-00.0.lock": a file name on every system.
std::string file_name(const std::string& device) {
  std::string name = "gpu-";
  for (char ch : device)
    name += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-') ? ch : '-';
  return name + ".lock";
}

Result<int> open_lock_file(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  // Everyone on the host must be able to take the lock: the folder and file are shared.
  std::filesystem::permissions(path.parent_path(), std::filesystem::perms::all, ec);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0)
    return Error::infrastructure(
        "cannot open the GPU lock " + path.string() + ": " + std::strerror(errno) +
        " (set KGATE_LOCK_DIR to a writable folder shared by all kgate processes)");
  return fd;
}

void write_owner(int fd) {
  std::string owner = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) (void)!::pwrite(fd, owner.data(), owner.size(), 0);
}

std::string read_owner(int fd) {
  char buffer[64] = {};
  ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
  std::string s(buffer, n > 0 ? n : 0);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\0')) s.pop_back();
  return s.empty() ? "another process" : "process " + s;
}

}  // namespace

std::filesystem::path GpuLock::default_dir() {
  if (const char* dir = std::getenv("KGATE_LOCK_DIR"); dir && *dir) return dir;
  return std::filesystem::temp_directory_path() / "kgate-locks";
}

Result<GpuLock> GpuLock::try_acquire(const std::string& device, const std::filesystem::path& dir) {
  std::filesystem::path path = dir / file_name(device);
  auto fd = open_lock_file(path);
  if (!fd.ok()) return fd.error();
  if (::flock(*fd, LOCK_EX | LOCK_NB) != 0) {
    std::string owner = read_owner(*fd);
    ::close(*fd);
    return Error::infrastructure("GPU " + device + " is busy: " + owner + " holds " +
                                 path.string());
  }
  write_owner(*fd);
  return GpuLock(*fd, path);
}

Result<GpuLock> GpuLock::acquire(const std::string& device, double timeout_s,
                                 const std::filesystem::path& dir) {
  std::filesystem::path path = dir / file_name(device);
  auto fd = open_lock_file(path);
  if (!fd.ok()) return fd.error();
  auto start = std::chrono::steady_clock::now();
  bool said = false;
  while (::flock(*fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      std::string why = std::strerror(errno);
      ::close(*fd);
      return Error::infrastructure("cannot lock " + path.string() + ": " + why);
    }
    if (!said) {
      progress("waiting for GPU " + device + ": " + read_owner(*fd) + " is timing on it");
      said = true;
    }
    double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (timeout_s >= 0 && waited >= timeout_s) {
      std::string owner = read_owner(*fd);
      ::close(*fd);
      return Error::infrastructure("GPU " + device + " stayed busy for " +
                                   std::to_string(static_cast<int>(waited)) + " s (" + owner +
                                   " holds " + path.string() + ")");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  write_owner(*fd);
  return GpuLock(*fd, path);
}

GpuLock::GpuLock(GpuLock&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) {
  other.fd_ = -1;
}

GpuLock& GpuLock::operator=(GpuLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    path_ = std::move(other.path_);
    other.fd_ = -1;
  }
  return *this;
}

GpuLock::~GpuLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor drops the flock
}

}  // namespace kgate
