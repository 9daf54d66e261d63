#pragma once
// Where a manifest's stored baselines live when no folder is given (`kgate baseline`'s
// --dir, `kgate sweep`'s --baselines): beside kgate.json, except for the examples bundled with
// kgate, whose stored baselines are data of the kgate tree itself (its top-level baselines/,
// one folder per example) so that a fresh clone carries them.
#include <filesystem>

namespace kgate {

// <tree>/baselines/<name> for a manifest at <tree>/examples/<name>/ when <tree>/baselines is a
// folder; <manifest_root>/baselines otherwise. A relative manifest_root gives a path relative
// to the current folder.
std::filesystem::path default_baseline_dir(const std::filesystem::path& manifest_root);

}  // namespace kgate
