#pragma once
// Loads the manifest's "gate" section (docs/manifest.md, "The gate section").
#include <nlohmann/json.hpp>

#include "core/manifest.h"
#include "core/manifest_reader.h"

namespace kgate {

// Unset keys keep GatePolicy's defaults.
Result<GatePolicy> load_gate_policy(const ManifestReader& reader, const nlohmann::json& gate);

}  // namespace kgate
