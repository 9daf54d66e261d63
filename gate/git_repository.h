#pragma once
// A git repository read through libgit2 (no git executable): resolves a
// revision, reads a file at a revision, writes a revision's tree into a
// folder, lists the paths that differ between two revisions and the commits
// of a history. The one way kgate resolves and reads revisions; writing a
// branch is gate/git_branch_writer.h, talking to remotes gate/git_push.h,
// gate/git_remote_branch.h and gate/pull_head_fetch.h.
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"

struct git_repository;  // libgit2

namespace kgate {

struct GitCommitInfo {
  std::string sha;
  std::string author_name;
  std::string author_email;
};

// Invariant: holds an open repository; libgit2 is initialised for its life.
class GitRepository {
 public:
  // A bad-input Error when `path` is not inside a git repository.
  static Result<std::unique_ptr<GitRepository>> open(const std::filesystem::path& path);
  ~GitRepository();
  GitRepository(const GitRepository&) = delete;
  GitRepository& operator=(const GitRepository&) = delete;

  // The commit id (40 hex digits) that `revision` names ("HEAD~1", a branch,
  // a tag, "refs/heads/x", an abbreviated id). A bad-input Error that names
  // the revision when it does not resolve to a commit.
  Result<std::string> resolve(const std::string& revision);
  // The content of `path` (repository-relative, '/'-separated) at `revision`.
  Result<std::string> read_file_at(const std::string& revision, const std::string& path);
  // The branch HEAD is on ("main"); a bad-input Error on a detached HEAD.
  Result<std::string> current_branch();
  // Writes every file of the commit's tree under `folder` (created).
  Status materialize(const std::string& commit, const std::filesystem::path& folder);
  // Repository-relative paths ('/'-separated) added, deleted, modified or
  // renamed between the two commits.
  Result<std::set<std::string>> changed_paths(const std::string& base_commit,
                                              const std::string& head_commit);
  // The commits reachable from `tip` and from none of `hidden` (revisions
  // that do not resolve are ignored), newest first.
  Result<std::vector<GitCommitInfo>> commits_since(const std::string& tip,
                                                   const std::vector<std::string>& hidden);
  std::filesystem::path workdir() const;

 private:
  explicit GitRepository(::git_repository* repo) : repo_(repo) {}
  ::git_repository* repo_;
};

// "1.5.1": the libgit2 kgate runs with.
std::string libgit2_version();

}  // namespace kgate
