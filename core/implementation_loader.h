#pragma once
// Loads one implementation of a kernel ("impl": {"cuda": {...}}, or the flat
// form) or of a reference kernel (docs/manifest.md, "An implementation").
#include <string>

#include <nlohmann/json.hpp>

#include "core/manifest.h"
#include "core/manifest_reader.h"

namespace kgate {

// A reference kernel takes no tunables: it is built once, as written.
enum class ImplementationUse { kKernel, kReference };

// `backend` is "cuda" or "host"; a cuda implementation needs a "launch".
Result<Implementation> load_implementation(const ManifestReader& reader, const nlohmann::json& body,
                                           const std::string& path, const std::string& backend,
                                           ImplementationUse use = ImplementationUse::kKernel);

}  // namespace kgate
