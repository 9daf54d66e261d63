#include "gate/shape_decision.h"

#include "core/number_format.h"

namespace kgate {

ShapeTimingFacts timing_facts(const Shape& shape, const GatePolicy& policy) {
  ShapeTimingFacts f;
  f.timing = policy.timing_of(shape);
  if (f.timing != ShapeTiming::kGate)
    f.timing_why = shape.timing ? "timing \"" + std::string(to_string(f.timing)) + "\""
                                : shape.phase + " shape";
  return f;
}

bool at_launch_floor(const ShapeTimingFacts& f, const GatePolicy& policy) {
  if (policy.launch_floor_factor <= 0 || !(f.launch_floor_s > 0)) return false;
  if (f.bytes_moved > static_cast<size_t>(policy.launch_floor_max_bytes)) return false;
  const double limit = policy.launch_floor_factor * f.launch_floor_s;
  return f.base_median_s > 0 && f.head_median_s > 0 && f.base_median_s <= limit &&
         f.head_median_s <= limit;
}

std::string launch_floor_note(const ShapeTimingFacts& f) {
  auto us = [](double s) { return format_number(s * 1e6, 2); };
  return "both sides at the launch floor (" + us(f.base_median_s) + " / " + us(f.head_median_s) +
         " us; empty kernel " + us(f.launch_floor_s) + " us)";
}

std::string timing_label(ShapeTiming timing, const std::string& why) {
  switch (timing) {
    case ShapeTiming::kGate:
      return "";
    case ShapeTiming::kReport:
      return "report only" + (why.empty() ? std::string() : ": " + why);
    case ShapeTiming::kOff:
      return "checked, not timed" + (why.empty() ? std::string() : " (" + why + ")");
  }
  return "";
}

ShapeDecision decide_shape(const RatioInterval& interval, const GatePolicy& policy,
                           const ShapeTimingFacts& facts) {
  ShapeDecision d;
  d.verdict = decide(interval, policy, facts.base_median_s);
  d.note = change_floor_note(interval, policy, facts.base_median_s);
  if (facts.timing != ShapeTiming::kGate) {
    // Shown as measured; never a failure, never a gain.
    d.counts = false;
    d.note = timing_label(facts.timing, facts.timing_why);
    return d;
  }
  const bool changed = d.verdict == Verdict::kSlower || d.verdict == Verdict::kFaster;
  if (changed && at_launch_floor(facts, policy)) {
    d.counts = false;
    d.note = launch_floor_note(facts);
    return d;
  }
  d.fails = breaks_policy(d.verdict, interval, policy);
  return d;
}

}  // namespace kgate
