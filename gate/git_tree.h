#pragma once
// Reads revisions of a git repository through libgit2 (no git executable):
// resolves a revision, writes its tree into a folder, lists the paths that
// differ between two revisions.
#include <filesystem>
#include <memory>
#include <set>
#include <string>

#include "core/status.h"

struct git_repository;  // libgit2

namespace kgate {

// Invariant: holds an open repository; libgit2 is initialised for its life.
class GitRepository {
 public:
  // A bad-input Error when `path` is not inside a git repository.
  static Result<std::unique_ptr<GitRepository>> open(const std::filesystem::path& path);
  ~GitRepository();
  GitRepository(const GitRepository&) = delete;
  GitRepository& operator=(const GitRepository&) = delete;

  // The commit id (40 hex digits) that `revision` names ("HEAD~1", a branch,
  // a tag, an abbreviated id). A bad-input Error that names the revision when
  // it does not resolve to a commit.
  Result<std::string> resolve(const std::string& revision);
  // Writes every file of the commit's tree under `folder` (created).
  Status materialize(const std::string& commit, const std::filesystem::path& folder);
  // Repository-relative paths ('/'-separated) added, deleted, modified or
  // renamed between the two commits.
  Result<std::set<std::string>> changed_paths(const std::string& base_commit,
                                              const std::string& head_commit);
  std::filesystem::path workdir() const;

 private:
  explicit GitRepository(::git_repository* repo) : repo_(repo) {}
  ::git_repository* repo_;
};

}  // namespace kgate
