#include "support/tunable_combinations.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <tuple>

namespace kgate::testing {

std::vector<Variables> all_combinations(const std::vector<Tunable>& tunables) {
  std::vector<Variables> out = {Variables{}};
  for (const Tunable& t : tunables) {
    std::vector<Variables> next;
    for (const Variables& partial : out)
      for (int64_t v : t.values) {
        Variables c = partial;
        c[t.name] = v;
        next.push_back(c);
      }
    out = std::move(next);
  }
  return out;
}

// Greedy covering: start each combination from the first pair not yet
// covered, give every other tunable the value that covers the most new pairs
// (the first such value on ties, so the result is deterministic).
std::vector<Variables> pairwise_combinations(const std::vector<Tunable>& tunables) {
  const size_t n = tunables.size();
  if (n < 2) return all_combinations(tunables);
  using Pair =
      std::tuple<size_t, size_t, size_t, size_t>;  // tunable i, value a, tunable j, value b
  std::set<Pair> uncovered;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j)
      for (size_t a = 0; a < tunables[i].values.size(); ++a)
        for (size_t b = 0; b < tunables[j].values.size(); ++b) uncovered.insert({i, a, j, b});
  auto cover = [&](const std::vector<size_t>& pick) {
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i + 1; j < n; ++j) uncovered.erase({i, pick[i], j, pick[j]});
  };
  auto to_variables = [&](const std::vector<size_t>& pick) {
    Variables v;
    for (size_t i = 0; i < n; ++i) v[tunables[i].name] = tunables[i].values[pick[i]];
    return v;
  };
  std::vector<Variables> out;
  std::vector<size_t> defaults(n, 0);
  cover(defaults);
  out.push_back(to_variables(defaults));
  while (!uncovered.empty()) {
    auto [i0, a0, j0, b0] = *uncovered.begin();
    const size_t unset = SIZE_MAX;
    std::vector<size_t> pick(n, unset);
    pick[i0] = a0;
    pick[j0] = b0;
    for (size_t k = 0; k < n; ++k) {
      if (pick[k] != unset) continue;
      size_t best = 0, best_gain = 0;
      for (size_t v = 0; v < tunables[k].values.size(); ++v) {
        size_t gain = 0;
        for (size_t o = 0; o < n; ++o) {
          if (o == k || pick[o] == unset) continue;
          gain += o < k ? uncovered.count({o, pick[o], k, v}) : uncovered.count({k, v, o, pick[o]});
        }
        if (gain > best_gain) best = v, best_gain = gain;
      }
      pick[k] = best;
    }
    cover(pick);
    out.push_back(to_variables(pick));
  }
  return out;
}

std::vector<Variables> value_rotations(const std::vector<Tunable>& tunables) {
  size_t count = 1;
  for (const Tunable& t : tunables) count = std::max(count, t.values.size());
  std::vector<Variables> out;
  for (size_t i = 0; i < count; ++i) {
    Variables v;
    for (size_t t = 0; t < tunables.size(); ++t)
      if (!tunables[t].values.empty())
        v[tunables[t].name] = tunables[t].values[(i + (i ? t : 0)) % tunables[t].values.size()];
    out.push_back(v);
  }
  return out;
}

}  // namespace kgate::testing
