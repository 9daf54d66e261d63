#pragma once
// The forge's copy of a branch, brought into the local clone so kgate can
// see what others pushed to it before it writes the branch again. The tip
// is fetched (libgit2) into refs/kgate/remote/<branch>, a ref kgate owns:
// the user's branches and remote-tracking refs are never touched.
#include <filesystem>
#include <optional>
#include <string>

#include "core/status.h"

namespace kgate {

// The commit `branch` points at on `remote_url`, fetched with its history;
// nullopt when the remote has no such branch (the local ref is removed
// then). `password` may be empty (file:// and local paths).
Result<std::optional<std::string>> fetch_remote_branch(const std::filesystem::path& repo_dir,
                                                       const std::string& remote_url,
                                                       const std::string& branch,
                                                       const std::string& password);

// "refs/kgate/remote/<branch>"
std::string remote_branch_ref(const std::string& branch);

}  // namespace kgate
