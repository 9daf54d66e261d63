#pragma once
// Pushes a local branch to a remote URL through libgit2 (forced, or only
// as a fast-forward). Over HTTPS
// the token is the password of user "x-access-token" (what GitHub expects
// for App installation tokens and works for personal tokens); file:// and
// local paths need no credentials (tests push to a bare repository).
#include <filesystem>
#include <string>

#include "core/status.h"

namespace kgate {

// `password` may be empty (no credentials offered). Errors never contain it.
// Without `force`, a remote branch that moved meanwhile refuses the push.
Status push_branch_to(const std::filesystem::path& repo_dir, const std::string& remote_url,
                      const std::string& branch, const std::string& password, bool force = true);

}  // namespace kgate
