#pragma once
// Checks candidates for correctness on the episode's seeded misaligned
// shapes (misaligned_shapes.h): correctness only, no timing, each shape in a
// measuring child (runner/isolated_measure.h) against the host reference.
//
// Invariant: a derived shape is held against candidates only if a trusted
// version (the original, or the best of a resumed episode) passes it: what
// the original does not do correctly is no contract of the kernel. Which
// shapes hold is decided once, by the first trusted version checked.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/misaligned_shapes.h"
#include "runner/backend.h"
#include "runner/measurement.h"
#include "runner/reference_cache.h"

namespace kgate {

struct MisalignedFailure {
  std::string shape;   // "misaligned-4097x3"
  std::string reason;  // "wrong on misaligned-4097x3 (cols=4097, rows=3; ...): ..."
};

class MisalignedCheck {
 public:
  // Everything passed must outlive the check. `count` 0 turns it off.
  MisalignedCheck(const Manifest& manifest, const Kernel& kernel, Backend& backend, uint64_t seed,
                  int count, double time_limit_s);

  // Decides which derived shapes hold, from `trusted` (once; later calls do
  // nothing). An Error only when the reference cannot be built.
  Status establish(const Program& trusted);
  // Nothing when `candidate` (built with `tunables`) is correct on every
  // shape that holds; otherwise the first shape it fails, with its variables.
  // `side`: the candidate's manifest entry when it has its own launch
  // (candidate_launch.h), null for the manifest's.
  Result<std::optional<MisalignedFailure>> check(const Program& candidate,
                                                 const Variables& tunables,
                                                 const Kernel* side = nullptr);

  // {"seed", "shapes": [{"name", "variables", "status": "checked"|"skipped: why"}]}
  nlohmann::json to_json() const;

 private:
  struct Entry {
    Shape shape;
    std::string status;  // "checked", or "skipped: why"
  };
  Status ensure_reference();
  ShapeMeasurement run(const Shape& shape, const Program& program, size_t index,
                       const Kernel* side = nullptr);

  const Manifest& manifest_;
  const Kernel& kernel_;
  Backend& backend_;
  const Implementation* impl_;
  MisalignedShapes derived_;
  double time_limit_s_;
  bool established_ = false;
  std::vector<Entry> entries_;
  std::optional<Program> reference_;
  ReferenceCache references_{size_t{256} << 20};
};

}  // namespace kgate
