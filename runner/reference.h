#pragma once
// The host reference of a kernel: built from the manifest's reference source
// with outputs as double*, so results are compared in double precision.
#include "core/manifest.h"
#include "core/status.h"
#include "runner/program.h"

namespace kgate {

// An Error when the compiler is missing; ok == false when the reference does
// not compile (its diagnostics say why).
Result<CompileOutcome> build_reference(const Kernel& kernel, const std::filesystem::path& root);

}  // namespace kgate
