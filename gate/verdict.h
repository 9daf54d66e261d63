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
  kChecked,       // the shape's timing is "off": checked for correctness, not timed
};
std::string_view to_string(Verdict verdict);
Verdict verdict_from_string(std::string_view text);

// Decides from the interval at the policy's confidence and the base's median
// (seconds; 0 when not known, which turns the floor off).
//   same:    the estimated change of the median, |estimate - 1| * base, is
//            below min_change_s (the timer's floor), or
//            1 / (1 + max_regression) <= low and high <= 1 + max_regression
//   slower:  low > 1 and estimate >= 1 + resolution
//   faster:  high < 1 and estimate <= 1 - max(min_improvement, resolution)
//   else inconclusive.
Verdict decide(const RatioInterval& interval, const GatePolicy& policy, double base_median_s);

// Whether the estimated change of the median is below the policy's
// min_change_s (a negative min_change_s, not yet resolved, counts as 0).
bool below_change_floor(const RatioInterval& interval, const GatePolicy& policy,
                        double base_median_s);
// "+23 ns, below the 100 ns floor (min_change_s)": why such a shape is
// "same"; empty when the change is not below the floor.
std::string change_floor_note(const RatioInterval& interval, const GatePolicy& policy,
                              double base_median_s);

// `policy` with min_change_s set to the backend's timer floor where the
// manifest left it unset (negative).
GatePolicy with_timer_floor(GatePolicy policy, double backend_floor_s);

// A slower verdict fails the gate when the estimate exceeds max_regression.
bool breaks_policy(Verdict verdict, const RatioInterval& interval, const GatePolicy& policy);

// Confidence used at the interim looks of adaptive sampling: stricter than
// the final one (Haybittle–Peto), so peeking does not inflate false alarms.
double interim_confidence(const GatePolicy& policy);

// True when the samples so far already decide: the interim interval shows a
// change beyond the resolution and its size within +-2 resolutions, or pins
// the ratio within +-resolution, or pins the change of the median within
// +-min_change_s.
bool decided_early(const std::vector<double>& head, const std::vector<double>& base,
                   const GatePolicy& policy);

// The MeasureRequest::enough callback for `policy`.
EnoughSamples adaptive_stop(const GatePolicy& policy);

}  // namespace kgate
