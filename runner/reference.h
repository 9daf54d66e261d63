#pragma once
// The host reference of a kernel: built from the manifest's reference source
// with outputs as double*, so results are compared in double precision.
#include "core/manifest.h"
#include "core/status.h"
#include "runner/backend.h"
#include "runner/host/host_library.h"
#include "runner/inputs.h"
#include "runner/launch_plan.h"
#include "runner/program.h"
#include "runner/reference_store.h"

namespace kgate {

// An Error when the compiler is missing; ok == false when the reference does
// not compile (its diagnostics say why).
Result<CompileOutcome> build_reference(const Kernel& kernel, const std::filesystem::path& root);

// The kernel's reference kernel for `backend` (the manifest's
// "reference": {"cuda": ...}), compiled by the backend; nullopt when the
// manifest gives none for it. One that does not compile is bad input, as a
// host reference that does not compile is.
Result<std::optional<Program>> build_device_reference(const Kernel& kernel,
                                                      const std::filesystem::path& root,
                                                      Backend& backend);

// Runs the reference on `inputs` (from make_inputs, read in place, not
// copied) and returns its outputs in double: one vector per output or in/out
// argument, empty for the others.
DoubleData run_reference(const HostLibrary& reference, const LaunchPlan& plan,
                         const HostData& inputs);

// `count` elements of `bytes` (of `dtype`) in double, converted on every
// host thread (the pages of `out` first touched there too).
void convert_to_doubles(DType dtype, const unsigned char* bytes, int64_t count, double* out);

// One input set and the reference's outputs on it.
struct ReferenceSet {
  uint64_t seed = 0;
  HostData inputs;
  DoubleData expected;
};

// Where prepare_reference_sets keeps outputs on disk: the store and the
// reference program's cache key.
struct StoredReferences {
  const ReferenceStore* store = nullptr;
  std::string program_key;
};

// Draws an input set per seed and runs the reference on each, the sets'
// references on threads side by side: a reference function must not keep
// mutable static state (the trampoline already makes its inputs const).
// With `stored`, outputs found on disk are read instead of computed, and
// outputs that took long to compute are written there.
std::vector<ReferenceSet> prepare_reference_sets(const HostLibrary& reference,
                                                 const LaunchPlan& plan,
                                                 const std::vector<uint64_t>& seeds,
                                                 const StoredReferences& stored = {});

}  // namespace kgate
