#pragma once
// Correctness of an example kernel for each of a set of tunable combinations:
// the example tunables tests (host and GPU) share it.
#include <string>
#include <vector>

#include "core/expression.h"
#include "core/manifest.h"
#include "runner/backend.h"

namespace kgate::testing {

// "BLOCK=256 VEC=8": a combination for failure messages.
std::string combination_text(const Variables& combination);

// The shapes a tunables check runs: every edge shape of `backend_name`, and
// the decode shape with the fewest elements (the product of its variables),
// to keep host input generation and the reference cheap.
std::vector<const Shape*> correctness_shapes(const Kernel& kernel, const std::string& backend_name);

struct TunableCheckCount {
  int checks = 0;  // (combination, shape) pairs measured
  int failed = 0;
};

// Builds `kernel`'s `backend_name` implementation with each combination and
// checks it against the host reference on each shape, each in its own child
// with fresh inputs and poisoned outputs (correctness only). Every failure is
// a test failure naming the combination and the shape; a build that fails
// ends the check of this kernel.
void check_tunable_combinations(const Manifest& manifest, const Kernel& kernel, Backend& backend,
                                const std::string& backend_name,
                                const std::vector<Variables>& combinations,
                                const std::vector<const Shape*>& shapes, TunableCheckCount* count);

}  // namespace kgate::testing
