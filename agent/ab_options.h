#pragma once
// What an episode's evaluator (agent/gate_evaluator.h) measures with: the
// input seed, samples and timing budget per shape, the shapes and phases it
// gates, and the seeded misaligned shapes every candidate is checked on.
#include <cstdint>
#include <string>
#include <vector>

#include "core/manifest.h"

namespace kgate {

struct AbOptions {
  uint64_t seed = 1;
  int min_samples = 10;  // per program and shape
  int max_samples = 30;
  double budget_s = 1.0;     // timing wall time per shape (the gate policy's budget_s by default)
  double time_limit_s = 60;  // a shape past this is a hang
  std::vector<std::string> shapes;  // empty: every shape the backend runs
  std::vector<std::string> phases;  // empty: every phase; else only shapes of these
  // Whether `shape` is one of the shapes chosen above.
  bool selects(const Shape& shape) const;
  // Seeded misaligned shapes every candidate is checked on before timing
  // (misaligned_shapes.h); 0: none.
  int misaligned_shapes = 3;
};

}  // namespace kgate
