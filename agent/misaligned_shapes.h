#pragma once
// Extra correctness shapes for an episode's candidates: from the kernel's
// declared shapes, a few small ones whose sizes break alignment (odd sizes,
// sizes that are not a multiple of 4, sizes one off a block multiple), drawn
// with the episode's seed. A kernel tuned on 4096-wide rows that drops the
// tail of a 4097-wide one is caught here even when the manifest has no such
// shape, or when --shapes leaves it out.
//
// Invariant: every derived shape satisfies the manifest's invariants at the
// default tunables (every buffer count positive, every launch expression
// evaluates in range: plan_launch succeeds); one that does not is listed as
// skipped with the reason, never used. Derived names start "misaligned-".
#include <cstdint>
#include <string>
#include <vector>

#include "core/manifest.h"

namespace kgate {

struct MisalignedShapes {
  uint64_t seed = 0;
  std::vector<Shape> shapes;
  std::vector<std::string> skipped;  // "name (vars): why"
};

// Up to `count` shapes for `impl`'s backend, each moving at most `max_bytes`
// (LaunchPlan::total_bytes) so the check stays cheap. Deterministic for
// (kernel, seed).
MisalignedShapes derive_misaligned_shapes(const Kernel& kernel, const Implementation& impl,
                                          uint64_t seed, int count = 3,
                                          size_t max_bytes = size_t{4} << 20);

// "cols=4097, rows=3": a shape's variables, for reasons and records.
std::string shape_variables_text(const Shape& shape);

}  // namespace kgate
