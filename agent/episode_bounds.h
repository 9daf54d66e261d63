#pragma once
// What bounds an episode's best version, shape by shape, from the numbers
// kgate has at the end of an episode: the best's median time, the bytes its
// launch moves (LaunchPlan::traffic_bytes) and the GPU's measured copy
// ceiling (runner/profile/roofline.h, when stored). The record keeps it and
// `kgate optimize` prints it, so a shape that stays short of the ceiling
// names why: at the ceiling already, too small to fill the GPU, or below
// the ceiling with room on a shape large enough to reach it.
//
// Invariant: pct_of_copy is set exactly when a ceiling is known and the
// shape moves bytes; `bound` is one of the kBound* names below.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/candidate_evaluator.h"
#include "runner/program.h"

namespace kgate {

inline constexpr const char* kBoundCeiling = "copy ceiling";        // >= 90% of it
inline constexpr const char* kBoundLaunch = "launch";               // a few launch latencies
inline constexpr const char* kBoundSize = "size";                   // too few bytes to reach it
inline constexpr const char* kBoundBelow = "below ceiling";         // large, and short of it
inline constexpr const char* kBoundUnmeasured = "no ceiling";       // no ceiling to compare with
inline constexpr const char* kBoundNoTraffic = "no traffic model";  // bytes or time unknown

struct ShapeBound {
  std::string shape, phase;
  double best_s = 0;
  size_t bytes_moved = 0;
  double bytes_per_s = 0;
  std::optional<double> pct_of_copy;
  std::string bound;
  std::string why;  // one sentence with the numbers

  nlohmann::json to_json() const;
  static ShapeBound from_json(const nlohmann::json& j);
};

struct EpisodeBounds {
  std::optional<double> copy_bytes_per_s;  // the GPU's measured device-to-device copy
  std::string ceiling_note;                // where the ceiling came from, or why there is none
  std::vector<ShapeBound> shapes;

  // "what bounds the best: ..." lines, one per shape, for people and agents.
  std::string text() const;
  nlohmann::json to_json() const;
  static EpisodeBounds from_json(const nlohmann::json& j);
};

// `timing`: the best version's shapes with best_s its median (as the episode
// keeps them); `resources`: its compiler report; `copy_bytes_per_s`: the
// measured copy ceiling, if any, and `ceiling_note` saying where it came from
// or why it is missing; `launch_floor_s`: the time a few empty launches take
// on this backend. A shape is "too small" only when its bytes are below
// what fills the GPU (gpu_fill_bytes) and it reaches at least half of what a
// kernel of its size could; otherwise, short of the ceiling, it is "below
// the ceiling with room".
EpisodeBounds episode_bounds(const std::vector<ShapeEvaluation>& timing,
                             const ResourceReport& resources,
                             std::optional<double> copy_bytes_per_s, std::string ceiling_note,
                             double launch_floor_s);

// Bytes that fill a GPU with this copy ceiling: where the launch, ramp and
// tail (about 5 us) are a tenth of the time at the ceiling, 191 MB at the
// H200's 4.24 TB/s; 0 without a ceiling.
double gpu_fill_bytes(double copy_bytes_per_s);

}  // namespace kgate
