#pragma once
// Loads an input buffer's "init" (docs/manifest.md, "Inputs"): a drawn
// distribution, or given contents (a list of values, a formula of the
// element index).
#include <string>

#include <nlohmann/json.hpp>

#include "core/manifest.h"
#include "core/manifest_reader.h"

namespace kgate {

// `dtype` is the buffer's element type (randint is for integers, a float
// number in "values" for floats).
Result<InitSpec> load_init(const ManifestReader& reader, const nlohmann::json& value,
                           const std::string& path, DType dtype);

}  // namespace kgate
