#include "agent/acceptance_rule.h"

#include <cmath>

#include "core/number_format.h"
#include "gate/verdict.h"

namespace kgate {
namespace {

// The gate's own test of a slowdown that fails a change, on a shape as the
// episode recorded it.
bool fails_policy(const ShapeEvaluation& s, const GatePolicy& policy) {
  if (!s.counts || s.verdict != ShapeVerdict::kSlower) return false;
  RatioInterval interval;
  interval.estimate = s.ratio;
  return breaks_policy(Verdict::kSlower, interval, policy);
}

}  // namespace

std::string acceptance_rule(const GatePolicy& g, const std::vector<ShapeEvaluation>& best_timing) {
  std::string rule =
      "Gate: a candidate is kept only when every shape is correct; no timed shape is more than " +
      format_number(g.max_regression * 100) +
      "% slower than the current best (one such shape rejects it, whatever the others gain); "
      "at least one timed shape is faster beyond noise (" +
      format_number(g.confidence * 100) +
      "% confidence); and the geomean time ratio over the timed shapes is at most " +
      format_number(1 - g.min_improvement) + " (" + format_number(g.min_improvement * 100) +
      "% faster).";
  std::string timed, report_only;
  for (const ShapeEvaluation& s : best_timing) {
    if (s.verdict == ShapeVerdict::kChecked || s.best_s <= 0) continue;
    std::string& list = s.counts ? timed : report_only;
    list += (list.empty() ? "" : ", ") + s.shape;
  }
  if (!timed.empty()) rule += " Timed in this episode: " + timed + ".";
  if (!report_only.empty())
    rule += " Timed but report only (neither win nor lose): " + report_only + ".";
  return rule;
}

std::string why_not_kept(const Evaluation& e, const GatePolicy& policy) {
  std::string breaking;
  bool any_faster = false;
  for (const ShapeEvaluation& s : e.shapes) {
    if (fails_policy(s, policy))
      breaking += (breaking.empty() ? "" : ", ") + s.shape + " " +
                  format_number(std::round((s.ratio - 1) * 1000) / 10) + "% slower";
    any_faster |= s.counts && s.verdict == ShapeVerdict::kFaster;
  }
  if (!breaking.empty())
    return breaking + ": more than the allowed " + format_number(policy.max_regression * 100) +
           "%, and one such shape rejects a candidate whatever the others gain";
  if (!any_faster) return "no timed shape is faster beyond noise";
  return "the geomean speedup " + format_number(1 / e.geomean_ratio) + "x is under the " +
         format_number(1 / (1 - policy.min_improvement)) + "x required";
}

}  // namespace kgate
