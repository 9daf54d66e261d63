#pragma once
// Loads one entry of a kernel's "args" (docs/manifest.md, "Arguments").
#include <string>

#include <nlohmann/json.hpp>

#include "core/manifest.h"
#include "core/manifest_reader.h"

namespace kgate {

// A buffer ("T*": count, role, init, null), a scalar ("T": value) or a
// struct passed by value ("struct": fields, each loaded like an argument,
// named `name_prefix` + the field's name).
Result<Arg> load_arg(const ManifestReader& reader, const nlohmann::json& a, const std::string& path,
                     const std::string& name_prefix = "");

}  // namespace kgate
