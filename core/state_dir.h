#pragma once
// Where kgate keeps its state for a repository (episodes, proposals, the
// experience store, the local forge's pull requests and checks):
// docs/agent.md, "The state directory".
#include <filesystem>

namespace kgate {

// <repo>/.kgate, or KGATE_STATE_DIR when set.
std::filesystem::path default_state_dir(const std::filesystem::path& repo);

}  // namespace kgate
