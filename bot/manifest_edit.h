#pragma once
// Applies an accepted tuning result to the text of kgate.json: a tunable's
// chosen value moves to the front of its list (the front is the default),
// extra compiler flags join the implementation's compile.flags, and a
// candidate's own launch replaces the implementation's "launch". The edit is
// made in the text, so the comments and the hand alignment people keep in
// their manifest survive and the pull request's diff shows only what changed.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"

namespace kgate::bot {

struct ManifestEdit {
  std::string kernel;   // the kernel's "name"
  std::string backend;  // which implementation ("host", "cuda"); flat kernels have one
  std::map<std::string, nlohmann::json> tunable_defaults;  // name -> value to move to the front
  std::vector<std::string> extra_flags;                    // appended to compile.flags
  // {"grid": [...], "block": [...], "shared_bytes": ...} replacing the
  // implementation's launch; null: unchanged.
  nlohmann::json launch;
};

// The edited text. A bad-input Error names the kernel, tunable or value that
// the manifest does not have; the text given is JSON with comments.
Result<std::string> edit_manifest_text(const std::string& text, const ManifestEdit& edit);

}  // namespace kgate::bot
