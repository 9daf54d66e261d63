#pragma once
// Files a child process must not touch (a service's secret files, its
// queue), enforced by the kernel with Landlock: the child may read and write
// every file except the hidden ones and everything beneath a hidden folder,
// through any path, even as root; it cannot read, write, truncate, remove,
// rename or link them, mount over them, or read the parent's memory through
// /proc/PID/mem (Landlock limits ptrace to the child's own domain; this
// kernel still lets /proc/PID/environ through, see webhooks/job_environment.h).
//
// Landlock grants rather than denies, so the ruleset grants everything it
// handles beneath every entry of the hidden files' ancestor folders except
// the hidden files and the ancestors themselves. Consequence, documented for
// operators: the child cannot create, remove or rename entries directly in
// one of those ancestor folders (for secrets in /etc/kgate: in /, /etc or
// /etc/kgate), nor read a file created there after the ruleset was built;
// keep secret files in a folder of their own.
//
// Invariant: a FileShield with a ruleset holds the only descriptor of it
// (close-on-exec); an empty one hides nothing.
#include <filesystem>
#include <vector>

#include "core/status.h"

namespace kgate {

class FileShield {
 public:
  FileShield() = default;
  // Hides `paths` (files or folders; missing ones are skipped). An error
  // (infrastructure) when the kernel has no usable Landlock (Linux 5.19 or
  // later, with Landlock enabled) and something is to be hidden.
  static Result<FileShield> make(const std::vector<std::filesystem::path>& paths);
  // The Landlock ABI version of this kernel, 0 without Landlock.
  static int landlock_abi();

  FileShield(FileShield&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FileShield& operator=(FileShield&& other) noexcept;
  FileShield(const FileShield&) = delete;
  FileShield& operator=(const FileShield&) = delete;
  ~FileShield();

  // For CommandOptions::landlock_ruleset_fd; -1 when nothing is hidden.
  int ruleset_fd() const { return fd_; }

 private:
  explicit FileShield(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// In a forked child, before exec: applies the ruleset (with no_new_privs).
// Async-signal-safe. False when the kernel refused it.
bool apply_file_shield(int ruleset_fd);

}  // namespace kgate
