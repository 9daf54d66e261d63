#pragma once
// The gate's rule for keeping a candidate (agent/gate_evaluator.cpp), in the
// words a model reads in its request: what the rule is, the shapes it times,
// and which part of it kept a correct candidate out. A model that knows one
// slower shape rejects a candidate plans for the smallest shape too.
#include <string>
#include <vector>

#include "agent/candidate_evaluator.h"
#include "core/manifest.h"

namespace kgate {

// "Gate: a candidate is kept only when ...", and the shapes of `best_timing`
// that are timed and count, and those timed but report only.
std::string acceptance_rule(const GatePolicy& policy,
                            const std::vector<ShapeEvaluation>& best_timing);

// Why the correct candidate `e` was not kept: the shapes slower than the
// policy allows, else no shape faster beyond noise, else a geomean short of
// min_improvement.
std::string why_not_kept(const Evaluation& e, const GatePolicy& policy);

}  // namespace kgate
