#pragma once
// Which oracle (runner/oracle.h) judges each shape of a gate. The host
// reference judges every shape small enough for it (at most
// gate.host_reference_max_elements buffer elements), and there the faster
// oracles are checked too. A larger shape is judged by the reference kernel
// where the manifest gives one for the backend, else by the base revision's
// outputs when the policy says "oracle": "base" and the base passed its
// check on every small shape gated so far, else by the host reference.
// See docs/gate.md, "Oracles".
#include <cstdint>
#include <string>
#include <vector>

#include "core/manifest.h"
#include "runner/oracle.h"

namespace kgate {

// Elements over every buffer of `shape` (what any reference must touch at
// least once); 0 when its counts do not evaluate.
int64_t shape_elements(const Kernel& kernel, const Shape& shape);

// Whether the host reference judges `shape` under `policy`.
bool host_reference_judges(const Kernel& kernel, const Shape& shape, const GatePolicy& policy);

// Shape indices in the order to measure them: those the host reference
// judges first (stable), so the base is checked before it judges.
std::vector<size_t> gating_order(const Kernel& kernel, const GatePolicy& policy);

// What the gate knows while choosing: whether a reference kernel is
// compiled for this backend, and whether the base is trusted so far.
struct OracleState {
  bool device_reference = false;
  bool base_available = false;
  int base_checks_passed = 0;  // small shapes where the base matched the reference
  int base_checks_failed = 0;

  bool base_trusted() const {
    return base_available && base_checks_passed > 0 && base_checks_failed == 0;
  }
};

// The oracle for `shape`, and a note for the report when the policy asked
// for the base and it could not judge ("" otherwise).
OracleKind choose_oracle(const Kernel& kernel, const Shape& shape, const GatePolicy& policy,
                         const OracleState& state, std::string* note = nullptr);

}  // namespace kgate
