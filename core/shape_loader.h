#pragma once
// Loads one entry of a kernel's "shapes" (docs/manifest.md, "Shapes").
#include <string>

#include <nlohmann/json.hpp>

#include "core/manifest.h"
#include "core/manifest_reader.h"

namespace kgate {

// `name`, `phase`, `backends`, `timing`; every other field is an integer
// shape variable.
Result<Shape> load_shape(const ManifestReader& reader, const nlohmann::json& s,
                         const std::string& path);

// "gate", "report" or "off" at `path`, with an error that lists them.
Result<ShapeTiming> load_shape_timing(const ManifestReader& reader, const nlohmann::json& value,
                                      const std::string& path);

}  // namespace kgate
