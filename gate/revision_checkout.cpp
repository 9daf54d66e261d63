#include "gate/revision_checkout.h"

#include <stdlib.h>

#include "gate/git_repository.h"

namespace kgate {

Result<RevisionCheckout> RevisionCheckout::make(const std::filesystem::path& repo,
                                                const std::string& revision,
                                                const std::string& prefix) {
  auto git = GitRepository::open(repo);
  if (!git.ok()) return git.error();
  auto commit = (*git)->resolve(revision);
  if (!commit.ok()) return commit.error();
  std::string templ = (std::filesystem::temp_directory_path() / (prefix + "XXXXXX")).string();
  if (!mkdtemp(templ.data()))
    return Error::infrastructure("cannot create a temporary folder in " +
                                 std::filesystem::temp_directory_path().string());
  RevisionCheckout checkout;
  checkout.path_ = templ;
  checkout.commit_ = *commit;
  checkout.workdir_ = (*git)->workdir();
  if (Status s = (*git)->materialize(*commit, checkout.path_); !s.ok())
    return s.error().with_context("writing out " + revision);
  return checkout;
}

RevisionCheckout::RevisionCheckout(RevisionCheckout&& other) noexcept
    : path_(std::move(other.path_)),
      workdir_(std::move(other.workdir_)),
      commit_(std::move(other.commit_)) {
  other.path_.clear();
}

RevisionCheckout::~RevisionCheckout() {
  std::error_code ec;
  if (!path_.empty()) std::filesystem::remove_all(path_, ec);
}

std::filesystem::path RevisionCheckout::in_workdir(const std::filesystem::path& inside) const {
  auto relative = std::filesystem::weakly_canonical(inside).lexically_relative(
      std::filesystem::weakly_canonical(path_));
  if (relative.empty() || relative == ".") return workdir_;
  return (workdir_ / relative).lexically_normal();
}

std::filesystem::path RevisionCheckout::in_checkout(const std::filesystem::path& inside) const {
  auto relative = std::filesystem::weakly_canonical(inside).lexically_relative(
      std::filesystem::weakly_canonical(workdir_));
  if (relative.empty() || relative == ".") return path_;
  return (path_ / relative).lexically_normal();
}

}  // namespace kgate
