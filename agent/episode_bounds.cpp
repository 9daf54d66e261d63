#include "agent/episode_bounds.h"

#include <cstdio>

#include "agent/persisted_json.h"
#include "core/number_format.h"

namespace kgate {
namespace {

// At the copy ceiling from here: the ceiling itself is a median of large
// copies, so a kernel within 10% of it has no memory time left to win.
constexpr double kCeilingShare = 0.90;
// What any launch costs besides moving its bytes: the launch itself, the
// first wave's ramp and the last one's tail. About 5 us on the H200: a copy
// of rmsnorm's 33.6 MB takes 13-14 us against 7.9 us at the ceiling, and
// the example kernels at 22-67 MB beat a PyTorch copy of the same bytes
// (docs/BENCHMARKS.md). A kernel of b bytes reaches at best
// (b / ceiling) / (b / ceiling + kStartupS) of the ceiling.
constexpr double kStartupS = 5e-6;
// What fills the GPU: the bytes at which that best reaches the ceiling class
// (kCeilingShare), 9 startups' worth at the ceiling: 191 MB at 4.24 TB/s.
// Below it a shape may be too small; above it, it never is. (The gate
// flushes the L2 before every sample, so the L2's size is no threshold.)
constexpr double kFillStartups = kCeilingShare / (1 - kCeilingShare);
// A shape below what fills the GPU is "too small" only when it reaches at
// least half of what a kernel of its size could: further below, the size
// does not explain the gap (a 50 MB shape at 5% of the ceiling has room).
constexpr double kSizeExplains = 0.5;

std::string gbps(double bytes_per_s) {
  const double g = bytes_per_s / 1e9;
  char text[32];
  std::snprintf(text, sizeof text, g >= 100 ? "%.0f GB/s" : "%.3g GB/s", g);
  return text;
}

std::string byte_count(size_t bytes) {
  if (bytes < 1000) return std::to_string(bytes) + " B";
  if (bytes < 1000 * 1000) return format_number(bytes / 1e3) + " kB";
  if (bytes < 1000 * 1000 * 1000) return format_number(bytes / 1e6) + " MB";
  return format_number(bytes / 1e9) + " GB";
}

std::string resources_text(const ResourceReport& r) {
  std::string s;
  if (r.registers >= 0) s += std::to_string(r.registers) + " registers/thread";
  if (r.spill_store_bytes > 0 || r.spill_load_bytes > 0)
    s += (s.empty() ? "" : ", ") + std::to_string(std::max(r.spill_store_bytes, 0)) + " B spilled";
  return s;
}

ShapeBound bound_of(const ShapeEvaluation& t, const ResourceReport& resources,
                    std::optional<double> ceiling, double launch_floor_s) {
  ShapeBound b;
  b.shape = t.shape;
  b.phase = t.phase;
  b.best_s = t.best_s;
  b.bytes_moved = t.bytes_moved;
  const std::string time = format_seconds(t.best_s);
  if (!(t.best_s > 0)) {
    b.bound = kBoundNoTraffic;
    b.why = "not timed, so no bandwidth to compare.";
    return b;
  }
  if (t.bytes_moved == 0) {
    b.bound = kBoundNoTraffic;
    b.why = time + "; the manifest's arguments give no bytes moved, so no bandwidth to compare.";
    return b;
  }
  b.bytes_per_s = t.bytes_moved / t.best_s;
  const std::string moved = byte_count(t.bytes_moved) + " in " + time + " = " + gbps(b.bytes_per_s);
  if (!ceiling || !(*ceiling > 0)) {
    b.bound = kBoundUnmeasured;
    b.why = moved + "; no copy ceiling to compare with.";
    return b;
  }
  const double share = b.bytes_per_s / *ceiling;
  b.pct_of_copy = 100 * share;
  const std::string pct = format_number(100 * share) + "% of the " + gbps(*ceiling) + " copy";
  const double ideal_s = t.bytes_moved / *ceiling;
  const double fill_bytes = gpu_fill_bytes(*ceiling);
  const double reachable = ideal_s / (ideal_s + kStartupS);  // the best a kernel of this size gets
  const std::string at_best =
      "a kernel of this size reaches about " + format_number(100 * reachable) + "% at best";
  if (share >= kCeilingShare) {
    b.bound = kBoundCeiling;
    b.why = moved + ", " + pct +
            ": at the memory ceiling; only moving fewer bytes (fusion, reuse) makes it faster.";
  } else if (t.best_s < launch_floor_s) {
    b.bound = kBoundLaunch;
    b.why = moved + ", " + pct + ": " + time +
            " is a few launch latencies; the launch, not the bytes, sets the time.";
  } else if (t.bytes_moved < fill_bytes && share >= kSizeExplains * reachable) {
    b.bound = kBoundSize;
    b.why = moved + ", " + pct + ": too small to fill the GPU (below " +
            byte_count(static_cast<size_t>(fill_bytes)) +
            "); at the ceiling these bytes would take " + format_seconds(ideal_s) +
            ", and the launch, the first wave's ramp and the tail (about " +
            format_seconds(kStartupS) + ") come on top: " + at_best + ".";
  } else {
    b.bound = kBoundBelow;
    std::string res = resources_text(resources);
    b.why = "below the ceiling with room: " + format_number(100 * share) + "% of copy bandwidth (" +
            moved + ", " + format_seconds(ideal_s) + " at the ceiling; " +
            (t.bytes_moved < fill_bytes ? at_best : "large enough to fill the GPU") +
            "): the kernel moves more than its launch's traffic (a second pass over the input), "
            "keeps too few bytes in flight, or is bound by instructions" +
            (res.empty() ? "" : " (" + res + ")") + "; `kgate profile` shows which.";
  }
  return b;
}

}  // namespace

double gpu_fill_bytes(double copy_bytes_per_s) {
  return copy_bytes_per_s > 0 ? kFillStartups * kStartupS * copy_bytes_per_s : 0;
}

EpisodeBounds episode_bounds(const std::vector<ShapeEvaluation>& timing,
                             const ResourceReport& resources,
                             std::optional<double> copy_bytes_per_s, std::string ceiling_note,
                             double launch_floor_s) {
  EpisodeBounds out;
  out.copy_bytes_per_s = copy_bytes_per_s;
  out.ceiling_note = std::move(ceiling_note);
  for (const ShapeEvaluation& t : timing)
    out.shapes.push_back(bound_of(t, resources, copy_bytes_per_s, launch_floor_s));
  return out;
}

std::string EpisodeBounds::text() const {
  std::string s = "What bounds the best (" + ceiling_note + "):\n";
  for (const ShapeBound& b : shapes)
    s += "- " + b.shape + " (" + b.phase + "), " + b.bound + ": " + b.why + "\n";
  return s;
}

nlohmann::json ShapeBound::to_json() const {
  nlohmann::json j = {{"shape", shape},
                      {"phase", phase},
                      {"best_s", finite_or_null(best_s)},
                      {"bytes_moved", bytes_moved},
                      {"bytes_per_s", finite_or_null(bytes_per_s)},
                      {"bound", bound},
                      {"why", why}};
  j["pct_of_copy"] = pct_of_copy ? finite_or_null(*pct_of_copy) : nlohmann::json();
  return j;
}

ShapeBound ShapeBound::from_json(const nlohmann::json& j) {
  ShapeBound b;
  b.shape = string_field(j, "shape");
  b.phase = string_field(j, "phase");
  b.best_s = number_field(j, "best_s", 0);
  b.bytes_moved = static_cast<size_t>(unsigned_field(j, "bytes_moved", 0));
  b.bytes_per_s = number_field(j, "bytes_per_s", 0);
  if (j.contains("pct_of_copy") && j["pct_of_copy"].is_number())
    b.pct_of_copy = j["pct_of_copy"].get<double>();
  b.bound = string_field(j, "bound");
  b.why = string_field(j, "why");
  return b;
}

nlohmann::json EpisodeBounds::to_json() const {
  nlohmann::json j = {{"ceiling_note", ceiling_note}, {"shapes", nlohmann::json::array()}};
  j["copy_bytes_per_s"] = copy_bytes_per_s ? finite_or_null(*copy_bytes_per_s) : nlohmann::json();
  for (const ShapeBound& b : shapes) j["shapes"].push_back(b.to_json());
  j["text"] = text();
  return j;
}

EpisodeBounds EpisodeBounds::from_json(const nlohmann::json& j) {
  EpisodeBounds e;
  if (j.contains("copy_bytes_per_s") && j["copy_bytes_per_s"].is_number())
    e.copy_bytes_per_s = j["copy_bytes_per_s"].get<double>();
  e.ceiling_note = string_field(j, "ceiling_note");
  for (const auto& s : array_field(j, "shapes"))
    if (s.is_object()) e.shapes.push_back(ShapeBound::from_json(s));
  return e;
}

}  // namespace kgate
