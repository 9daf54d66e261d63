#pragma once
// The host reference of a kernel: built from the manifest's reference source
// with outputs as double*, so results are compared in double precision.
#include "core/manifest.h"
#include "core/status.h"
#include "runner/host/host_library.h"
#include "runner/inputs.h"
#include "runner/launch_plan.h"
#include "runner/program.h"

namespace kgate {

// An Error when the compiler is missing; ok == false when the reference does
// not compile (its diagnostics say why).
Result<CompileOutcome> build_reference(const Kernel& kernel, const std::filesystem::path& root);

// Runs the reference on `inputs` (from make_inputs, read in place, not
// copied) and returns its outputs in double: one vector per output or in/out
// argument, empty for the others.
std::vector<std::vector<double>> run_reference(const HostLibrary& reference, const LaunchPlan& plan,
                                               const HostData& inputs);

// One input set and the reference's outputs on it.
struct ReferenceSet {
  uint64_t seed = 0;
  HostData inputs;
  std::vector<std::vector<double>> expected;
};

// Draws an input set per seed and runs the reference on each, the sets'
// references on threads side by side: a reference function must not keep
// mutable static state (the trampoline already makes its inputs const).
std::vector<ReferenceSet> prepare_reference_sets(const HostLibrary& reference,
                                                 const LaunchPlan& plan,
                                                 const std::vector<uint64_t>& seeds);

}  // namespace kgate
