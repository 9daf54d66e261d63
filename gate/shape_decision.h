#pragma once
// How a shape's timing counts, once decide() (verdict.h) has read its
// interval: whether a slowdown may fail the gate and whether a change counts
// as a gain or a loss for an episode. Two things stop a shape's time from
// counting (docs/gate.md, "Shapes whose time does not count"):
//   - its timing role (core/manifest.h ShapeTiming): "report" shapes are
//     shown, never fail; "off" shapes are checked and not timed at all;
//   - the launch-floor rule: both sides sit at the empty launch measured
//     beside them, on a shape that moves almost no data.
// The gate (ab_gate.cpp) and both episode evaluators decide through here.
#include <cstddef>
#include <string>

#include "core/manifest.h"
#include "gate/paired_ratio.h"
#include "gate/verdict.h"

namespace kgate {

// What the gate knows of one shape beside its interval.
struct ShapeTimingFacts {
  ShapeTiming timing = ShapeTiming::kGate;
  // Why the timing is not kGate, for reports: "edge shape" (the phase's
  // default in gate.timing_by_phase) or "timing \"report\"" (the shape's own).
  std::string timing_why;
  double base_median_s = 0, head_median_s = 0;
  double launch_floor_s = 0;  // the empty launch beside the samples; 0: not measured
  size_t bytes_moved = 0;     // LaunchPlan::traffic_bytes of the shape
};

// Invariant: fails implies counts and verdict == kSlower.
struct ShapeDecision {
  Verdict verdict = Verdict::kInconclusive;
  bool fails = false;  // a slowdown beyond the policy on a shape whose time gates
  bool counts = true;  // the change counts as a gain or a loss
  std::string note;    // why it does not count, or the timer-floor note; "" otherwise
};

// The facts of `shape` under `policy`: its timing role and why.
ShapeTimingFacts timing_facts(const Shape& shape, const GatePolicy& policy);

// Both medians within policy.launch_floor_factor times the launch floor, on
// a shape moving at most policy.launch_floor_max_bytes; false when the floor
// was not measured or the rule is off.
bool at_launch_floor(const ShapeTimingFacts& facts, const GatePolicy& policy);
// "both sides at the launch floor (4.4 / 5.2 us; empty kernel 4.1 us)".
std::string launch_floor_note(const ShapeTimingFacts& facts);

// The verdict of a timed shape (timing kGate or kReport) and how it counts.
ShapeDecision decide_shape(const RatioInterval& interval, const GatePolicy& policy,
                           const ShapeTimingFacts& facts);

// "report only: edge shape", "checked, not timed (edge shape)": the words
// reports put beside a verdict for a shape whose timing does not gate.
std::string timing_label(ShapeTiming timing, const std::string& why);

}  // namespace kgate
