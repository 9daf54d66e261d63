#pragma once
// Writes a branch in a local repository without touching its working tree
// or index: a commit on top of a base revision whose tree is the base's tree
// with some files replaced, authored and committed by kgate's identity
// (bot_identity.h). The branch is moved to the new commit (created, or
// reset): callers check first that the branch holds nobody else's commits
// (branch_ownership.h).
#include <filesystem>
#include <string>
#include <vector>

#include "bot/bot_identity.h"
#include "core/status.h"

namespace kgate::bot {

struct FileChange {
  std::string path;  // repository-relative, '/'-separated
  std::string content;
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
                                  const BotIdentity& author = BotIdentity{});

// The SHA a revision resolves to in the repository.
Result<std::string> resolve_revision(const std::filesystem::path& repo_dir, const std::string& rev);

// The branch HEAD is on ("main"); a bad-input Error on a detached HEAD.
Result<std::string> current_branch(const std::filesystem::path& repo_dir);

// The text of `path` at `rev`.
Result<std::string> read_file_at(const std::filesystem::path& repo_dir, const std::string& rev,
                                 const std::string& path);

// "message (libgit2: <last error>)": libgit2's error text for messages.
std::string git_error_text(const std::string& what);

void ensure_libgit2();

}  // namespace kgate::bot
