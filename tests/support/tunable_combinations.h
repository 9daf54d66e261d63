#pragma once
// Sets of tunable values to check a kernel with: every combination; a
// smaller set in which every pair of values of two tunables occurs together
// at least once; or the fewest in which every value occurs. All start with
// the defaults (every tunable at its first value).
#include <vector>

#include "core/expression.h"
#include "core/manifest.h"

namespace kgate::testing {

std::vector<Variables> all_combinations(const std::vector<Tunable>& tunables);
std::vector<Variables> pairwise_combinations(const std::vector<Tunable>& tunables);
// The fewest: combination i gives tunable t its value (i + t) mod its count,
// so every value occurs and the others vary with it (as many combinations as
// the longest list of values).
std::vector<Variables> value_rotations(const std::vector<Tunable>& tunables);

}  // namespace kgate::testing
