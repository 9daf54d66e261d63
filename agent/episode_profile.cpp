#include "agent/episode_profile.h"

#include <algorithm>
#include <chrono>

#include "agent/agent_context.h"
#include "agent/persisted_json.h"
#include "core/log.h"
#include "core/number_format.h"
#include "core/subprocess.h"
#include "runner/profile/kernel_profiler.h"
#include "runner/profile_model/profile_summary.h"

namespace kgate {

std::optional<profile_model::ProfileData> ProfileObservation::profile() const {
  if (!data.is_object()) return std::nullopt;
  try {
    return profile_model::ProfileData::from_json(data);
  } catch (const std::exception&) {
    return std::nullopt;  // a damaged record: no profile, never an abort
  }
}

nlohmann::json ProfileObservation::to_json() const {
  return {{"iteration", iteration}, {"shape", shape},
          {"summary", summary},     {"bottleneck", bottleneck},
          {"data", data},           {"seconds", finite_or_null(seconds)},
          {"error", error}};
}

ProfileObservation ProfileObservation::from_json(const nlohmann::json& j) {
  ProfileObservation o;
  o.iteration = static_cast<int>(integer_field(j, "iteration", 0));
  o.shape = string_field(j, "shape");
  o.summary = string_field(j, "summary");
  o.bottleneck = string_field(j, "bottleneck", "unknown");
  o.data = object_field(j, "data");
  if (o.data.empty()) o.data = nullptr;
  o.seconds = number_field(j, "seconds", 0);
  o.error = string_field(j, "error");
  if (o.error.empty() && o.data.is_null()) o.error = "no profile recorded";
  return o;
}

ChildProfiler::ChildProfiler(const Manifest& manifest, Backend& backend,
                             ChildProfilerOptions options)
    : manifest_(manifest), backend_(backend), options_(options) {}

ProfileObservation ChildProfiler::profile(const Candidate& version, const Kernel& entry,
                                          const std::string& shape) {
  ProfileObservation o;
  o.shape = shape;
  o.bottleneck = "unknown";
  const auto started = std::chrono::steady_clock::now();
  progress("profiling " + entry.name + " / " + shape + " (" + backend_.name() + ")");
  // The whole profile (compile, the profiler's own children) in one child:
  // whatever CUPTI or the kernel does there cannot reach the episode.
  ChildOutcome child = run_in_child(
      [&]() -> std::string {
        profile::KernelProfileRequest r;
        r.manifest = &manifest_;
        r.kernel = &entry;
        r.backend = &backend_;
        r.shapes = {shape};
        r.gpu = options_.gpu;
        r.seed = options_.seed;
        r.options.counters = options_.counters;
        r.source_text = version.source_text;
        r.tunables = version.tunables;
        r.extra_flags = version.flags;
        auto profiles = profile::profile_kernel(r);
        if (!profiles.ok()) return nlohmann::json{{"error", profiles.error().message}}.dump();
        if (profiles->empty())
          return nlohmann::json{{"error", "the shape does not run on " + backend_.name()}}.dump();
        const profile_model::ProfileData& p = profiles->front();
        return nlohmann::json{{"summary", render_summary(p)}, {"data", summary_json(p)}}.dump();
      },
      options_.time_limit_s);
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!child.completed) {
    o.error = "the profiling child " + child.describe(options_.time_limit_s) +
              (child.err_tail.empty() ? "" : ": " + child.err_tail);
    return o;
  }
  const nlohmann::json j = nlohmann::json::parse(child.payload, nullptr, false);
  if (!j.is_object()) {
    o.error = "the profiling child returned no profile";
    return o;
  }
  o.error = string_field(j, "error");
  if (!o.error.empty()) return o;
  o.summary = string_field(j, "summary");
  o.data = object_field(j, "data");
  o.bottleneck = string_field(o.data, "bottleneck", "unknown");
  return o;
}

std::string profile_shape(const std::vector<ShapeEvaluation>& timing,
                          const std::string& focus_phase) {
  // Shapes whose time gates first (report-only edge shapes and shapes at the
  // launch floor say little about the kernel's work), then the focus phase.
  auto usable = [](const ShapeEvaluation& s) { return s.best_s > 0; };
  const bool gating = std::any_of(timing.begin(), timing.end(),
                                  [&](const ShapeEvaluation& s) { return usable(s) && s.counts; });
  const bool focus = std::any_of(timing.begin(), timing.end(), [&](const ShapeEvaluation& s) {
    return usable(s) && (!gating || s.counts) && !focus_phase.empty() && s.phase == focus_phase;
  });
  const ShapeEvaluation* pick = nullptr;
  for (const ShapeEvaluation& s : timing) {
    if (!usable(s) || (gating && !s.counts) || (focus && s.phase != focus_phase)) continue;
    if (!pick || s.bytes_moved > pick->bytes_moved ||
        (s.bytes_moved == pick->bytes_moved && s.best_s > pick->best_s))
      pick = &s;
  }
  return pick ? pick->shape : "";
}

std::string profile_section(const ProfileObservation* profile,
                            const std::vector<ShapeEvaluation>& timing,
                            const ResourceReport& resources, const std::string& backend) {
  if (!profile || !profile->ok()) {
    std::string why = profile ? "No profile of the current best (" + profile->error +
                                    "); from timing and the compiler's resource report.\n"
                              : "";
    std::string t = timing_profile_summary(timing, resources, backend);
    if (!why.empty() && t.rfind("No profiler ran", 0) == 0) t = t.substr(t.find('\n') + 1);
    return why + t;
  }
  std::string s = "Profile of the current best (" +
                  (profile->iteration == 0 ? std::string("the original")
                                           : "iteration " + std::to_string(profile->iteration)) +
                  ") on shape " + profile->shape + ", as `kgate profile` prints it:\n\n" +
                  profile->summary;
  if (!s.empty() && s.back() != '\n') s += "\n";
  std::string lines;
  for (const ShapeEvaluation& sh : timing) {
    if (sh.best_s <= 0) continue;
    lines += "- " + sh.shape + " (" + sh.phase + "): " + format_seconds(sh.best_s) +
             (sh.bytes_moved ? ", " + format_number(sh.bytes_moved / sh.best_s / 1e9) +
                                   " GB/s over " + std::to_string(sh.bytes_moved) + " bytes"
                             : std::string()) +
             "\n";
  }
  if (!lines.empty()) s += "\nEvery shape's median (the gate's timing):\n" + lines;
  return s;
}

}  // namespace kgate
