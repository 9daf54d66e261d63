#pragma once
// Loads a "tolerance" object, the kernel's or an output's (docs/manifest.md,
// "Tolerances").
#include <string>

#include <nlohmann/json.hpp>

#include "core/manifest.h"
#include "core/manifest_reader.h"

namespace kgate {

// `defaults` with the fields `value` gives replaced; each must be >= 0.
Result<Tolerance> load_tolerance(const ManifestReader& reader, const nlohmann::json& value,
                                 const std::string& path, const Tolerance& defaults);

}  // namespace kgate
