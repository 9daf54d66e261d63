#pragma once
// Sets of tunable values to check a kernel with: every combination, or a
// smaller set in which every pair of values of two tunables occurs together
// at least once (so every value occurs with the others varied). Both start
// with the defaults (every tunable at its first value).
#include <vector>

#include "core/expression.h"
#include "core/manifest.h"

namespace kgate::testing {

std::vector<Variables> all_combinations(const std::vector<Tunable>& tunables);
std::vector<Variables> pairwise_combinations(const std::vector<Tunable>& tunables);

}  // namespace kgate::testing
