#pragma once
// Loads and validates kgate.json. Every error names the file, the JSON path
// (kernels[2].args[1].count) and what was expected.
#include <filesystem>
#include <string_view>

#include "core/manifest.h"
#include "core/status.h"

namespace kgate {

// `path` is a kgate.json file or a folder holding kgate.json or
// .github/kgate.json. Comments (// and /* */) are allowed.
Result<Manifest> load_manifest(const std::filesystem::path& path);

// Parses manifest text; relative paths resolve against `root`. `display_path`
// is the name messages use.
Result<Manifest> parse_manifest(std::string_view text, const std::filesystem::path& display_path,
                                const std::filesystem::path& root);

// A compute-sanitizer tool kgate can run ("memcheck", "racecheck",
// "initcheck", "synccheck"): gate.sanitize and `kgate gate --sanitize-kernels`.
bool is_sanitizer_tool(std::string_view name);

// The manifest file inside a repository folder, if there is one.
std::optional<std::filesystem::path> find_manifest(const std::filesystem::path& folder);

}  // namespace kgate
