#pragma once
// One revision of a git repository written out to a temporary folder through
// libgit2, for subcommands that work on a revision rather than the working
// tree (`kgate optimize --ref`, `kgate baseline record --ref`): the service's
// jobs name the commit a delivery was about, not whatever is checked out.
// Invariant: while alive, path() holds every file of commit()'s tree; the
// folder is removed when the object is destroyed.
#include <filesystem>
#include <string>

#include "core/status.h"

namespace kgate {

class RevisionCheckout {
 public:
  // `repo`: any folder inside a git repository; `revision`: a commit id,
  // branch, tag or expression (HEAD~1). Bad-input errors name the revision.
  // `prefix` names the temporary folder (`kgate gate` uses its own, so that
  // its tests can tell that no message names it).
  static Result<RevisionCheckout> make(const std::filesystem::path& repo,
                                       const std::string& revision,
                                       const std::string& prefix = "kgate-rev-");
  RevisionCheckout(RevisionCheckout&& other) noexcept;
  RevisionCheckout& operator=(RevisionCheckout&&) = delete;
  ~RevisionCheckout();

  const std::filesystem::path& path() const { return path_; }
  const std::string& commit() const { return commit_; }  // 40 hex digits
  // The repository's working tree (where results that outlive the checkout go).
  const std::filesystem::path& workdir() const { return workdir_; }
  // `inside` (a path under path()) moved to the same place under workdir().
  std::filesystem::path in_workdir(const std::filesystem::path& inside) const;
  // `inside` (a path in the working tree, such as --repo) moved to the same
  // place in the checkout.
  std::filesystem::path in_checkout(const std::filesystem::path& inside) const;

 private:
  RevisionCheckout() = default;
  std::filesystem::path path_, workdir_;
  std::string commit_;
};

}  // namespace kgate
