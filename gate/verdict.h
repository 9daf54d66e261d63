#pragma once
// The verdict policy: what a ratio interval means for a merge, and when
// sampling may stop. Both sides of the fork use the same rule (the child
// decides when to stop, the parent decides the verdict).
#include <string>
#include <string_view>

#include "core/manifest.h"
#include "gate/paired_ratio.h"
#include "runner/harness.h"

namespace kgate {

enum class Verdict {
  kFaster,  // significantly faster by at least min_improvement
  kSlower,  // significantly slower by at least the resolution
  kSame,    // interval inside +-max_regression and no significant change beyond the resolution
  kInconclusive,  // too noisy to tell within the budget
  kIncorrect,     // head is wrong (or crashed, hung) on this shape
  kError,         // the harness could not measure (infrastructure)
  kNew,           // no base to compare with: checked for correctness only
};
std::string_view to_string(Verdict verdict);
Verdict verdict_from_string(std::string_view text);

// Decides from the interval at the policy's confidence.
//   slower:  low > 1 and estimate >= 1 + resolution
//   faster:  high < 1 and estimate <= 1 - max(min_improvement, resolution)
//   same:    1 / (1 + max_regression) <= low and high <= 1 + max_regression
//   else inconclusive.
Verdict decide(const RatioInterval& interval, const GatePolicy& policy);

// A slower verdict fails the gate when the estimate exceeds max_regression.
bool breaks_policy(Verdict verdict, const RatioInterval& interval, const GatePolicy& policy);

// Confidence used at the interim looks of adaptive sampling: stricter than
// the final one (Haybittle–Peto), so peeking does not inflate false alarms.
double interim_confidence(const GatePolicy& policy);

// True when the samples so far already decide: the interim interval shows a
// change beyond the resolution, or pins the ratio within +-resolution.
bool decided_early(const std::vector<double>& head, const std::vector<double>& base,
                   const GatePolicy& policy);

// The MeasureRequest::enough callback for `policy`.
EnoughSamples adaptive_stop(const GatePolicy& policy);

}  // namespace kgate
