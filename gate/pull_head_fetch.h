#pragma once
// Bringing a pull request's head commit into the local clone before it is
// gated. A fork's commits (or a branch not fetched yet) are not in the clone;
// GitHub publishes every pull request's head as refs/pull/<N>/head on the base
// repository, so it is fetched from there (libgit2) into a ref kgate owns,
// refs/kgate/pull/<N>/head, which keeps the commit reachable and never touches
// the user's branches.
#include <filesystem>
#include <string>

#include "core/status.h"

namespace kgate {

struct PullHeadRequest {
  std::filesystem::path repo_dir;
  int64_t pull_number = 0;
  std::string head_sha;  // full commit id the event named
  std::string base_sha;  // fetched from the remote's branches too when missing (may be empty)
  std::string remote = "origin";
  std::string password;  // HTTPS password (user x-access-token); empty: none offered
};

struct PullHead {
  bool fetched = false;  // false: the head was already in the clone
  std::string commit;    // what refs/pull/<N>/head held (== head_sha unless a newer push came)
  std::string ref;       // refs/kgate/pull/<N>/head when fetched
};

// Whether `repo_dir` is itself a git repository (no search upwards).
bool is_git_repository(const std::filesystem::path& repo_dir);

// Fetches the head when it is missing. Errors: bad_input when the remote is
// not configured or a commit id is malformed, infrastructure when the fetch
// fails (network, credentials, no such pull request on the remote). The
// caller compares `commit` with the head it expected.
Result<PullHead> ensure_pull_head(const PullHeadRequest& request);

}  // namespace kgate
