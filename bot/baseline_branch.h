#pragma once
// Baselines recorded where nothing persists (a GitHub Actions runner's
// workspace) are kept on a branch of their own, kgate/baselines: its tree
// holds only baselines/<gpu>/<kernel>.json, its history is the history of
// the measurements, and it never merges into anything. Gates read it
// (`kgate gate --baselines`), recording jobs start from it and publish back
// to it.
//
// A recording job starts from a copy of the branch and writes the commit it
// copied into the folder's kRestoredFromFile; publishing then writes only
// the files that job changed, on top of whatever the branch holds now, so
// jobs on several GPU models (each changing its own files) all land.
//
// Invariant: publishing never rewrites the branch or anyone's entries: the
// new commit's parent is the forge's tip, the push is a fast-forward or
// fails, and a file changed both by the job and on the branch since the job
// copied it is an error, not an overwrite.
#include <filesystem>
#include <string>

#include "bot/forge.h"
#include "core/status.h"

namespace kgate::bot {

inline constexpr const char* kBaselinesBranch = "kgate/baselines";
// In a folder of baselines: the kgate/baselines commit it was copied from.
inline constexpr const char* kRestoredFromFile = "KGATE_RESTORED_FROM";

struct BaselinePublication {
  std::string commit_sha;  // the branch's tip after publishing
  size_t files = 0;        // baseline files the job changed
  bool changed = false;    // false: the branch already held these files; nothing pushed
};

// Commits the files under `folder` (recursively; those that differ from the
// commit named in kRestoredFromFile, or all without one) as
// baselines/<relative path> on `branch`, on top of the forge's copy of it (a
// root commit when it has none), and pushes it. A folder that does not
// exist holds nothing.
Result<BaselinePublication> publish_baselines(Forge& forge, const std::filesystem::path& repo_dir,
                                              const std::filesystem::path& folder,
                                              const std::string& branch = kBaselinesBranch);

}  // namespace kgate::bot
