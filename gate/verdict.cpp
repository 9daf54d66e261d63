#include "gate/verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

namespace kgate {

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::kFaster:
      return "faster";
    case Verdict::kSlower:
      return "slower";
    case Verdict::kSame:
      return "same";
    case Verdict::kInconclusive:
      return "inconclusive";
    case Verdict::kIncorrect:
      return "incorrect";
    case Verdict::kError:
      return "error";
    case Verdict::kNew:
      return "new";
    case Verdict::kChecked:
      return "checked";
  }
  return "?";
}

Verdict verdict_from_string(std::string_view text) {
  for (Verdict v : {Verdict::kFaster, Verdict::kSlower, Verdict::kSame, Verdict::kInconclusive,
                    Verdict::kIncorrect, Verdict::kError, Verdict::kNew, Verdict::kChecked})
    if (to_string(v) == text) return v;
  return Verdict::kError;
}

bool below_change_floor(const RatioInterval& r, const GatePolicy& policy, double base_median_s) {
  return r.pairs > 0 && base_median_s > 0 && policy.min_change_s > 0 &&
         std::abs(r.estimate - 1) * base_median_s < policy.min_change_s;
}

std::string change_floor_note(const RatioInterval& r, const GatePolicy& policy,
                              double base_median_s) {
  if (!below_change_floor(r, policy, base_median_s)) return "";
  char text[128];
  std::snprintf(text, sizeof text, "%+.0f ns, below the %.0f ns floor (min_change_s)",
                (r.estimate - 1) * base_median_s * 1e9, policy.min_change_s * 1e9);
  return text;
}

GatePolicy with_timer_floor(GatePolicy policy, double backend_floor_s) {
  if (policy.min_change_s < 0) policy.min_change_s = backend_floor_s;
  return policy;
}

namespace {
// A bound within rounding of 1 comes from tied samples (the timer's ticks
// make many pairs exactly equal): it excludes no change, so it is no evidence
// of one. Seen on the H200 as "slower" with a lower bound of 1 + 2e-15.
constexpr double kTie = 1e-9;
bool above_one(double bound) {
  return bound > 1 + kTie;
}
bool below_one(double bound) {
  return bound < 1 - kTie;
}
}  // namespace

Verdict decide(const RatioInterval& r, const GatePolicy& policy, double base_median_s) {
  if (r.pairs == 0) return Verdict::kInconclusive;
  if (below_change_floor(r, policy, base_median_s)) return Verdict::kSame;
  if (above_one(r.low) && r.estimate >= 1 + policy.resolution) return Verdict::kSlower;
  double gain = std::max(policy.min_improvement, policy.resolution);
  if (below_one(r.high) && r.estimate <= 1 - gain) return Verdict::kFaster;
  if (r.low >= 1 / (1 + policy.max_regression) && r.high <= 1 + policy.max_regression)
    return Verdict::kSame;
  return Verdict::kInconclusive;
}

bool breaks_policy(Verdict verdict, const RatioInterval& r, const GatePolicy& policy) {
  return verdict == Verdict::kSlower && r.estimate > 1 + policy.max_regression;
}

double interim_confidence(const GatePolicy& policy) {
  return 1 - (1 - policy.confidence) / 10;
}

bool decided_early(const std::vector<double>& head, const std::vector<double>& base,
                   const GatePolicy& policy) {
  RatioInterval r = paired_ratio_interval(head, base, interim_confidence(policy));
  if (r.pairs == 0 || r.low <= 0) return false;
  // A change is reported with its size: stopping as soon as it shows left a 13% slowdown
  // of a 1.5 us kernel at 24 pairs and "7% to 18.5%" (H200, candle e3db30021), so sampling
  // goes on until the size is known within +-2 resolutions (or the budget ends).
  const bool sized = (std::log(r.high) - std::log(r.low)) / 2 <= 2 * policy.resolution;
  if (above_one(r.low) && r.estimate >= 1 + policy.resolution && sized) return true;
  if (below_one(r.high) && r.estimate <= 1 - policy.resolution && sized) return true;
  // A shape at the timer's floor: the whole interval moves the median by less than the floor.
  if (policy.min_change_s > 0 &&
      std::max(r.high - 1, 1 - r.low) * quantile(base, 0.5) < policy.min_change_s)
    return true;
  return r.low >= 1 / (1 + policy.resolution) && r.high <= 1 + policy.resolution;
}

EnoughSamples adaptive_stop(const GatePolicy& policy) {
  // Looks are spaced geometrically (each at >= 10% more pairs than the last):
  // fewer looks keep the error spent on peeking small and the cost O(n log n).
  auto last_look = std::make_shared<size_t>(0);
  return [policy, last_look](const std::vector<double>& head, const std::vector<double>& base) {
    size_t n = std::min(head.size(), base.size());
    if (n < *last_look + std::max<size_t>(5, *last_look / 10)) return false;
    *last_look = n;
    return decided_early(head, base, policy);
  };
}

}  // namespace kgate
