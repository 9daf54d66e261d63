#pragma once
// Compares a kernel's outputs with the reference's (computed in double).
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/manifest.h"
#include "runner/inputs.h"
#include "runner/launch_plan.h"

namespace kgate {

struct CheckReport {
  bool passed = false;
  std::string reason;  // empty when passed
  double max_abs_error = 0;
  double max_rel_error = 0;  // |out - ref| / max(|ref|, atol)
  double rel_l2_error = 0;   // ||out - ref|| / ||ref|| over every output
  std::string first_bad_arg;
  int64_t first_bad_index = -1;
  double got = 0, expected = 0;
  uint64_t seed = 0;

  nlohmann::json to_json() const;
  static CheckReport from_json(const nlohmann::json& j);
};

// `outputs[i]` holds the bytes of plan.args[i] when it is compared
// (ArgPlan::compared; empty otherwise); `reference[i]` the reference's values
// in double. Each output is held to its own tolerance (ArgPlan::tolerance,
// every bound times `factor`): an element passes when |out - ref| <= atol +
// rtol * |ref|, or is within ulp units in the last place of the output's
// type at |ref|, or within scale_rel times the output's largest |ref|. NaN
// never passes, and a poisoned element is reported as not written.
CheckReport compare_outputs(const LaunchPlan& plan, const HostData& outputs,
                            const DoubleData& reference, double factor = 1.0);

// Bit-exact comparison of two runs on the same input. Differences within the
// tolerance are reported as non-determinism, beyond it as a race.
CheckReport compare_runs(const LaunchPlan& plan, const HostData& first, const HostData& second);

// One unit in the last place of `type` at magnitude |x| (1 for integers).
double ulp_of(DType type, double x);

}  // namespace kgate
