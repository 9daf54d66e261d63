#pragma once
// Whether two revisions of a kernel can be timed against each other on a
// shape, and the plans that let them: both must run on the same inputs, so
// the head's and the base's manifest entries must agree on the shape (same
// name, same variables) and on every buffer, matched by name: element type,
// role, element count, NULL or not, how inputs are made. Scalars, their
// number and order, struct layouts, descriptors (inputs with given contents
// or NULL: each side gets its own), launch geometry, tunables, sources may
// differ: that is what a change is (a pull request that adds a `block_size`
// parameter is timed like any other). A buffer only one side has takes part
// when that side declares it "one_sided"; a base's buffer that the head
// dropped takes part when the base only reads it or writes it as scratch or
// output (the head's reference judges what the head writes).
//
// Both sides then run on one set of device buffers (harness.cpp), so buffer
// placement cannot favour a side: the plans align_sides returns share their
// leaves, index for index.
#include <string>
#include <vector>

#include "core/manifest.h"
#include "runner/launch_plan.h"

namespace kgate {

// "" when comparable, else why not, for a report:
// "the base has no shape 'x'", "the base's shape 'x' has rows=4, the head's rows=8".
std::string shape_difference(const Shape& head, const Shape* base);

// The two sides over one list of leaves: the head's, then the base's that
// the head lacks (its own scalars, the buffers only it has). Each side's
// params point into that list; a leaf the side does not take is `used` =
// false there. Invariant: head.args and base.args have the same size, and
// every buffer leaf has the same count, type and contents in both.
struct AlignedSides {
  LaunchPlan head, base;
};

// "" and `out` set when the two plans can share their buffers, else the
// first reason why not: "argument 'x' has 4096 elements in the head and 2048
// in the base", "the head's buffer 'bias' has no match in the base (...)".
std::string align_sides(const LaunchPlan& head, const LaunchPlan& base, AlignedSides& out);

// What changed between the base's parameter list and the head's, for a
// report; "" when nothing did: "the head adds parameter 'block_size'
// (int32); the parameters are reordered".
std::string signature_change(const Kernel& head, const Kernel& base);

}  // namespace kgate
