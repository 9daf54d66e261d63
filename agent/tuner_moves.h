#pragma once
// Moves of the built-in tuner that need no tunable and no rewrite, for
// kernels nobody prepared (no tunables in kgate.json), and how a profile
// orders them. Every move is a candidate like any other: compiled, checked
// on every shape and the misaligned ones, gated.
//
// CUDA:
//   - the block size, where the launch allows it: a literal block, a kernel
//     that reads blockDim, nothing that hard-codes the size (the literal in
//     the kernel's body or in a static __shared__ array, a
//     __launch_bounds__, a template argument, an argument's element count
//     that depends on it); the grid is rescaled where it is a ceil_div over
//     the block (ceil_div(n, 256), (n + 255) / 256) and kept where it does
//     not depend on it. The candidate carries its own launch
//     (candidate_launch.h);
//   - register caps: __launch_bounds__(B[, min blocks]) on the entry,
//     --maxrregcount=N below the registers the compiler uses;
//   - #pragma unroll on innermost loops whose bound is not a constant (the
//     compiler does not unroll those by itself);
//   - cache hints: ptxas's default load cache (-dlcm=ca: L1 and L2,
//     -dlcm=cg: L2 only); both are semantics-preserving.
// Host: -O3, -funroll-loops, and -march=native with -ffp-contract=off (the
// CPU's full vector width without fusing a*b+c, which would round
// differently).
//
// Pure: source text and manifest expressions in, moves out; tested without
// a GPU (tests/agent/tuner_moves_test.cpp), the edited sources compiled with
// NVRTC there.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/candidate_launch.h"

namespace kgate {

// What a profile says that orders the tuner's moves (from the context's
// "profile": the class, and the counters of summary_json where a profile
// ran). Without counters only the class is known.
struct ProfileGuidance {
  // "memory-bound", "compute-bound", "latency-low-occupancy",
  // "latency-bound", "register-limited", "launch-bound" or "unknown".
  std::string bottleneck = "unknown";
  bool narrow_accesses = false;  // memory-bound, loads under 4 sectors (128 B) per warp request
  bool poor_coalescing = false;  // memory-bound, under 60% of fetched bytes used
  bool registers_limit_occupancy = false;  // theoretical occupancy limited by registers
  std::string occupancy_limiter;           // "registers", "blocks per SM", ...
  int registers = -1;                      // per thread, where known
  // One sentence with the numbers behind it, for the plan's BOTTLENECK.
  std::string evidence;

  static ProfileGuidance from_context(const nlohmann::json& profile);
};

struct MoveInput {
  std::string backend;     // "cuda" or "host"
  std::string source;      // the current best's source
  std::string entry;       // the implementation's entry (may be a template-id)
  CandidateLaunch launch;  // the current best's launch (its own or the manifest's)
  std::vector<std::string> arg_expressions;  // every argument's count/value expression
  std::vector<std::string> flags;            // the current best's extra flags
  ProfileGuidance guidance;
};

struct SourceMove {
  std::string name;                       // "block 512", "__launch_bounds__(256)", ...
  std::optional<std::string> source;      // the edited source; nullopt: unchanged
  std::optional<CandidateLaunch> launch;  // the new launch; nullopt: unchanged
  std::vector<std::string> add_flags;
  int priority = 8;  // lower first, on the tuner's scale
  std::string why, expected, risks;
};

// The moves for a kernel that declares no tunables, each at most once.
std::vector<SourceMove> untuned_moves(const MoveInput& input);

// Why the block size cannot move ("" when it can): which rule holds it.
std::string block_size_blocker(const MoveInput& input);
// `expr` with the block size `from` replaced by `to` where it is a
// ceil_div over it; the same text where it does not mention `from`;
// nullopt where it mentions it otherwise (unsure).
std::optional<std::string> rescale_over_block(const std::string& expr, int64_t from, int64_t to);
// The source with `__launch_bounds__(bounds)` on the entry's definition;
// nullopt where there is none, more than one, or bounds already.
std::optional<std::string> with_launch_bounds(const std::string& source, const std::string& entry,
                                              const std::string& bounds);
// The source with `#pragma unroll factor` before each innermost loop of the
// entry whose bound is not a literal and that has no pragma; nullopt when
// there is none.
std::optional<std::string> with_unroll_pragmas(const std::string& source, const std::string& entry,
                                               int factor);
// `source` with comments and string literals blanked (same length), so
// searches see code only.
std::string code_only(const std::string& source);

}  // namespace kgate
