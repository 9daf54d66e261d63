#pragma once
// What judges a kernel's outputs on one shape (docs/gate.md, "Oracles"):
//   - the host reference: the manifest's C++ reference, in double, on the
//     CPU; always trusted, slow on large shapes;
//   - the device reference: the manifest's reference kernel for the
//     backend ("reference": {"cuda": ...}), in double, on the device;
//   - the base: the base revision's own outputs, for changes where the base
//     is trusted.
// The gate chooses per shape (runner/oracle_choice.h). On shapes small enough
// for the host reference it judges, and the faster oracles are checked
// against it there, so a wrong one is noticed.
#include <functional>
#include <memory>
#include <string_view>

#include "core/manifest.h"
#include "core/status.h"
#include "runner/compare.h"
#include "runner/device.h"
#include "runner/host/host_library.h"
#include "runner/reference.h"
#include "runner/reference_cache.h"
#include "runner/staged_inputs.h"

namespace kgate {

enum class OracleKind { kHostReference, kDeviceReference, kBase };
// "host reference", "device reference", "base".
std::string_view to_string(OracleKind kind);

// The factor on each output's tolerance head is held to against `kind`: 1;
// 2 against the base, since base and head may each be off from the truth by
// one tolerance.
double oracle_tolerance_factor(OracleKind kind);
// How close a device reference must come to the host reference: a tenth of
// each output's tolerance, so a reference kernel that computes in lower
// precision than claimed, or wrongly, is caught.
inline constexpr double kReferenceAgreementFactor = 0.1;

// What prepare_oracle needs, as loaded in the measuring child.
struct OracleSources {
  OracleKind kind = OracleKind::kHostReference;
  const LaunchPlan* plan = nullptr;  // head's: the inputs drawn and outputs judged
  uint64_t seed = 1;                 // sets for seed and seed + 1
  // kHostReference:
  const HostLibrary* host_reference = nullptr;
  std::shared_ptr<const ReferenceSets> kept;  // sets already computed (ReferenceCache)
  StoredReferences stored;                    // outputs kept on disk
  // kDeviceReference (and the check of it on small shapes):
  Device* device = nullptr;
  LoadedKernel* device_reference = nullptr;
  LaunchDims reference_dims;
  // kBase: runs the base on set `set`'s inputs and returns its output bytes.
  std::function<Result<HostData>(const HostData& inputs, size_t set)> run_base;
  // Where the non-host oracles' input set `set` (for `seed`) is drawn: on
  // the device, kept there by the caller, its host bytes returned
  // (staged_inputs.h, draw_inputs). Unset: make_inputs on the host.
  std::function<Result<HostData>(uint64_t seed, size_t set)> draw_set;
  // The device copies of set `set` where draw_set drew it, else nullptr.
  std::function<const StagedInputs*(size_t set)> staged_set;
};

// The input sets for {seed, seed + 1} and the oracle's outputs on each. An
// Error when the oracle could not run (the base or the reference kernel
// failed): not the head's fault.
Result<std::shared_ptr<const ReferenceSets>> prepare_oracle(const OracleSources& sources);

// The device reference on `host_set`'s inputs against the host reference's
// outputs, within kReferenceAgreementFactor of each output's tolerance.
Result<CheckReport> check_device_reference(const OracleSources& sources,
                                           const ReferenceSet& host_set);

}  // namespace kgate
