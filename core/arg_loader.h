#pragma once
// Loads one entry of a kernel's "args" (docs/manifest.md, "Arguments").
#include <string>

#include <nlohmann/json.hpp>

#include "core/manifest.h"
#include "core/manifest_reader.h"

namespace kgate {

// A buffer ("T*": count, role, init) or a scalar ("T": value).
Result<Arg> load_arg(const ManifestReader& reader, const nlohmann::json& a,
                     const std::string& path);

}  // namespace kgate
