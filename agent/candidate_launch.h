#pragma once
// A candidate's own launch: grid, block and dynamic shared memory written as
// the manifest's integer expressions over the shape's variables and the
// tunables (core/expression.h). Most real rewrites (one warp per row
// instead of one thread per row, a cluster per row) need a launch of their
// own, so an answer may carry one; the candidate is then measured with it,
// and the current best with its own, as the gate measures two revisions
// (docs/gate.md). The pull request writes it into kgate.json.
//
// Invariant: a CandidateLaunch that passed check_candidate_launch parses and
// evaluates, for every shape the backend runs, to a launch the hardware
// accepts (dimensions positive, at most 1024 threads per block, shared
// memory within the device's limit where it is known).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/manifest.h"
#include "core/status.h"

namespace kgate {

struct CandidateLaunch {
  std::vector<std::string> grid;   // 1 to 3 expressions
  std::vector<std::string> block;  // 1 to 3 expressions
  std::string shared_bytes = "0";

  // {"grid": [...], "block": [...], "shared_bytes": ...}: a number where the
  // expression is a plain integer, else the expression's text.
  nlohmann::json to_json() const;
  // From an answer or a record: integers or expression strings; nullopt
  // when `j` is not an object with grid and block arrays (what is malformed
  // is said by check_candidate_launch, which parses).
  static std::optional<CandidateLaunch> from_json(const nlohmann::json& j);
  // "grid [ceil_div(rows, 4)], block [128], shared_bytes 0"
  std::string text() const;
  bool operator==(const CandidateLaunch& other) const = default;
};

// The launch of `impl` as a CandidateLaunch (the manifest's expressions).
CandidateLaunch launch_of(const Implementation& impl);

// Parses every expression; an Error names the one that does not parse.
Result<LaunchSpec> parse_candidate_launch(const CandidateLaunch& launch);

// "" when `launch` is usable on every shape of `kernel` that runs on
// `backend` with `tunables` (missing names take the defaults), else what the
// agent is told: which expression, which shape, what is wrong.
// `max_shared_bytes` is the device's limit per block (0: not known).
std::string check_candidate_launch(const CandidateLaunch& launch, const Kernel& kernel,
                                   const std::string& backend, const Variables& tunables,
                                   int64_t max_shared_bytes = 0);

// A copy of `kernel` whose `backend` implementation launches with `launch`
// (already checked); the copy is what the harness plans that side from.
Kernel kernel_with_launch(const Kernel& kernel, const std::string& backend,
                          const LaunchSpec& launch);

}  // namespace kgate
