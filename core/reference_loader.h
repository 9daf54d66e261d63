#pragma once
// Loads a kernel's "reference" (docs/manifest.md, "The reference"): the host
// reference, and optionally a reference kernel for the cuda backend.
#include <string>

#include <nlohmann/json.hpp>

#include "core/manifest.h"
#include "core/manifest_reader.h"

namespace kgate {

Result<Reference> load_reference(const ManifestReader& reader, const nlohmann::json& reference,
                                 const std::string& path);

}  // namespace kgate
