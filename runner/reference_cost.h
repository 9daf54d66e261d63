#pragma once
// What the host reference will cost on each shape, known before it is paid
// (a 4096^3 GEMM reference in double takes tens of seconds per input set).
//
// Measured, not guessed: the reference is timed (in a forked child, so a
// crash cannot take the caller down) on the calibration shape, the largest
// shape of the kernel with at most kCalibrationElements buffer elements
// (none: no estimate), and its time is scaled to every
// other shape by its work. The work of a shape is taken as the larger of
// two ratios to the calibration shape: buffer elements (an elementwise or
// row-wise reference) and the product of the shape's integer variables (a
// GEMM's M * N * K). The larger ratio makes it an upper estimate for
// references whose work grows like either.
#include <cstdint>
#include <string>
#include <vector>

#include "core/manifest.h"
#include "core/status.h"
#include "runner/program.h"

namespace kgate {

struct ReferenceCost {
  std::string shape;
  double seconds = 0;  // per input set
  std::string basis;   // "timed 12 ms on shape 'small', work x2300"
};

inline constexpr int64_t kCalibrationElements = int64_t{1} << 16;

// Estimates for the shapes named in `shapes` (every shape if empty), from
// one timed run of `reference` (the compiled host reference) on the
// calibration shape. An Error when that run fails (crash, hang past
// `limit_s`): then nothing is known.
Result<std::vector<ReferenceCost>> estimate_reference_costs(const Kernel& kernel,
                                                            const Program& reference,
                                                            const std::vector<std::string>& shapes,
                                                            double limit_s = 60);

// The warning for one estimate, or "" when it is below the threshold: the
// smaller of kSlowReferenceS and a quarter of the per-shape time limit.
// Names the kernel, the shape and the estimate, says whether it exceeds the
// time limit, and gives the remedies.
inline constexpr double kSlowReferenceS = 10;
std::string reference_cost_warning(const Kernel& kernel, const ReferenceCost& cost,
                                   double time_limit_s);

// The names of the shapes the host reference may judge (oracle_choice.h):
// those small enough for it, and larger ones where no reference kernel
// exists for the backend; `only` non-empty: that shape alone.
std::vector<std::string> host_judged_shapes(const Kernel& kernel, const GatePolicy& policy,
                                            const std::string& backend, bool device_reference,
                                            const std::string& only = "");

// Estimates and warns (core/log.h) for `shapes`, the shapes the host
// reference will judge (none: nothing is run); an estimate that cannot be
// made is a progress note, never an error.
void warn_slow_references(const Kernel& kernel, const Program& reference,
                          const std::vector<std::string>& shapes, double time_limit_s);

}  // namespace kgate
