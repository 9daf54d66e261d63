#pragma once
// Writes a branch in a local repository without touching its working tree
// or index: a commit on top of a base revision whose tree is the base's tree
// with some files replaced, authored and committed by the given author (the
// bot passes kgate's identity, bot/bot_identity.h). The branch is moved to
// the new commit (created, or reset): callers check first that the branch
// holds nobody else's commits (bot/branch_ownership.h).
#include <filesystem>
#include <string>
#include <vector>

#include "core/status.h"

namespace kgate {

struct FileChange {
  std::string path;  // repository-relative, '/'-separated
  std::string content;
};

struct GitAuthor {
  std::string name;
  std::string email;
};

struct BranchCommit {
  std::string commit_sha;
  std::string base_sha;
  bool changes_base = true;  // false when the files already had this content at base
};

// `base_rev` is anything git rev-parse accepts ("main", a SHA, "HEAD~1"),
// or empty for a root commit whose tree holds only `files`.
Result<BranchCommit> write_branch(const std::filesystem::path& repo_dir,
                                  const std::string& base_rev, const std::string& branch,
                                  const std::vector<FileChange>& files, const std::string& message,
                                  const GitAuthor& author);

}  // namespace kgate
