#include "core/file_shield.h"

#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

// Linux 6.2's value (Landlock ABI 3), for older kernel headers.
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif

namespace kgate {
namespace {

// Reparenting (rename or link into another folder) is refused under any
// Landlock ruleset before ABI 2, which breaks compilers and caches that move
// their outputs into place: the shield needs ABI 2 to grant it.
constexpr int kMinAbi = 2;

std::set<std::filesystem::path> ancestors_of(const std::filesystem::path& path) {
  std::set<std::filesystem::path> out;
  for (auto p = path.parent_path(); !p.empty(); p = p.parent_path()) {
    out.insert(p);
    if (p == p.root_path()) break;
  }
  return out;
}

}  // namespace

int FileShield::landlock_abi() {
  long abi = syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi < 0 ? 0 : static_cast<int>(abi);
}

FileShield& FileShield::operator=(FileShield&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

FileShield::~FileShield() {
  if (fd_ >= 0) close(fd_);
}

Result<FileShield> FileShield::make(const std::vector<std::filesystem::path>& paths) {
  std::set<std::filesystem::path> hidden;
  for (const auto& p : paths) {
    std::error_code ec;
    auto real = std::filesystem::canonical(p, ec);
    if (!ec) hidden.insert(real);
  }
  if (hidden.empty()) return FileShield();
  int abi = landlock_abi();
  if (abi < kMinAbi)
    return Error::infrastructure(
        abi == 0 ? "this kernel has no Landlock (Linux 5.19 or later with Landlock enabled)"
                 : "this kernel's Landlock (ABI " + std::to_string(abi) +
                       ") cannot let jobs move files between folders (needs Linux 5.19)");

  // Reading and every change; listing folders and running programs stay free.
  __u64 file_access = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE;
  if (abi >= 3) file_access |= LANDLOCK_ACCESS_FS_TRUNCATE;
  const __u64 folder_access =
      file_access | LANDLOCK_ACCESS_FS_REFER | LANDLOCK_ACCESS_FS_REMOVE_DIR |
      LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |
      LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
      LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
  landlock_ruleset_attr attr{};
  attr.handled_access_fs = folder_access;
  int fd = static_cast<int>(syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0));
  if (fd < 0)
    return Error::infrastructure(std::string("landlock_create_ruleset: ") + std::strerror(errno));
  FileShield shield(fd);

  std::set<std::filesystem::path> chain;
  for (const auto& h : hidden) chain.merge(ancestors_of(h));
  for (const auto& folder : chain) {
    std::error_code ec;
    for (std::filesystem::directory_iterator it(folder, ec), end; !ec && it != end;
         it.increment(ec)) {
      const std::filesystem::path& entry = it->path();
      if (hidden.count(entry) || chain.count(entry)) continue;
      std::error_code type_ec;
      auto status = it->symlink_status(type_ec);
      // A link is judged by where it leads, which has its own rule (or none).
      if (type_ec || std::filesystem::is_symlink(status)) continue;
      int entry_fd = open(entry.c_str(), O_PATH | O_CLOEXEC | O_NOFOLLOW);
      if (entry_fd < 0) continue;
      landlock_path_beneath_attr rule{};
      rule.parent_fd = entry_fd;
      rule.allowed_access = std::filesystem::is_directory(status) ? folder_access : file_access;
      long added = syscall(SYS_landlock_add_rule, fd, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
      int error = errno;
      close(entry_fd);
      if (added != 0)
        return Error::infrastructure("landlock_add_rule for " + entry.string() + ": " +
                                     std::strerror(error));
    }
  }
  return shield;
}

bool apply_file_shield(int ruleset_fd) {
  if (ruleset_fd < 0) return true;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
  return syscall(SYS_landlock_restrict_self, ruleset_fd, 0) == 0;
}

}  // namespace kgate
