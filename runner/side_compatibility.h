#pragma once
// Whether two revisions of a kernel can be timed against each other on a
// shape: both must run on the same inputs, so the head's and the base's
// manifest entries must agree on the shape (same name, same variables) and,
// planned each with its own tunables, on every argument in order: buffer or
// scalar, dtype, role, element count, how inputs are drawn, scalar values.
// Launch geometry, tunables, sources and argument names may differ: that is
// what a change is. When they are comparable, both sides run on the same
// device buffers (harness.cpp), so buffer placement cannot favour a side.
#include <string>

#include "core/manifest.h"
#include "runner/launch_plan.h"

namespace kgate {

// "" when comparable, else why not, for a report:
// "the base has no shape 'x'", "the base's shape 'x' has rows=4, the head's rows=8".
std::string shape_difference(const Shape& head, const Shape* base);

// "" when the two plans take the same inputs, else the first difference:
// "the head adds argument 'bias'", "argument 'x' has 4096 elements in the
// head and 2048 in the base".
std::string plan_difference(const LaunchPlan& head, const LaunchPlan& base);

}  // namespace kgate
