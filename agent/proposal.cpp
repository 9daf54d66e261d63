#include "agent/proposal.h"

#include <cmath>

#include "agent/persisted_json.h"
#include "agent/turn_journal.h"
#include "core/file_util.h"
#include "core/utc_time.h"
#include "gate/workload_validation.h"

namespace kgate {
namespace {

// Proposals carry no nulls where the bot reads numbers: an unknown value is 0.
double finite(double v) {
  return std::isfinite(v) ? v : 0;
}

}  // namespace

nlohmann::json make_proposal(const Manifest& manifest, const Kernel& kernel,
                             const EpisodeResult& episode, const std::filesystem::path& state_dir,
                             const nlohmann::json& workload_validation) {
  const EpisodeRecord& r = episode.record;
  const Implementation* impl = kernel.implementation(r.backend);
  nlohmann::json p = {
      {"version", 1},
      {"kernel", kernel.name},
      {"family", r.family},
      {"backend", r.backend},
      {"manifest", manifest.path.string()},
      {"source", impl ? impl->source : ""},
      {"episode_id", r.id},
      {"episode_record",
       (std::filesystem::relative(episode.dir, state_dir) / "episode.json").string()},
      {"agent", r.agent},
      {"seed", r.seed},
      {"created_at", utc_now_iso8601()},
      {"stop_reason", r.stop_reason},
      {"iterations_used", r.iterations.size()},
      {"best_iteration", r.best_iteration}};
  // The model's recorded turns, to score the result again without the model
  // (`--agent replay --answers`); the tuner records none.
  std::error_code ec;
  if (std::filesystem::is_directory(episode.dir / kTurnsFolder, ec))
    p["turns"] =
        (std::filesystem::relative(episode.dir, state_dir, ec) / kTurnsFolder).generic_string();
  // The candidate: the full source, and the tunable defaults to change in kgate.json.
  auto original =
      impl ? read_file(manifest.root / impl->source) : Result<std::string>(std::string());
  nlohmann::json defaults_changed = nlohmann::json::object();
  nlohmann::json tunables = object_field(r.best_candidate, "tunables");
  if (impl)
    for (const Tunable& t : impl->tunables)
      if (tunables.contains(t.name) && tunables[t.name].is_number_integer() &&
          tunables[t.name].get<int64_t>() != t.values.front())
        defaults_changed[t.name] = tunables[t.name];
  p["candidate"] = {{"source_text", episode.best_source},
                    {"source_changed", !original.ok() || *original != episode.best_source},
                    {"tunables", tunables},
                    {"tunable_defaults_changed", defaults_changed},
                    {"flags", array_field(r.best_candidate, "flags")}};
  // The best's own launch, to be written into kgate.json (and into any code
  // that launches the kernel itself); with the manifest's, for the PR's text.
  if (auto launch = CandidateLaunch::from_json(object_field(r.best_candidate, "launch"));
      launch && impl) {
    p["candidate"]["launch"] = launch->to_json();
    p["candidate"]["launch_before"] = launch_of(*impl).to_json();
  }
  // The original's profile and the best's, on the same shape (episode_profile.h).
  const ProfileObservation* before = nullptr;
  const ProfileObservation* after = nullptr;
  for (const ProfileObservation& o : r.profiles) {
    if (o.iteration == 0 && !before) before = &o;
    if (o.iteration == r.best_iteration) after = &o;
  }
  if (before || after) {
    nlohmann::json profiles = nlohmann::json::object();
    if (before) profiles["before"] = before->to_json();
    if (after) profiles["after"] = after->to_json();
    p["profiles"] = profiles;
  }
  nlohmann::json shapes = nlohmann::json::array();
  if (r.final_evaluation) {
    p["speedup_geomean"] = finite(1 / r.final_evaluation->geomean_ratio);
    p["gate_engine"] = r.final_evaluation->engine;
    // Evidence for the pull request's profile and environment sections.
    p["device"] = r.final_evaluation->device;
    if (r.baseline && r.baseline->compiled) p["resources_before"] = r.baseline->resources.to_json();
    if (r.final_evaluation->compiled)
      p["resources_after"] = r.final_evaluation->resources.to_json();
    for (const ShapeEvaluation& s : r.final_evaluation->shapes)
      shapes.push_back({{"shape", s.shape},
                        {"phase", s.phase},
                        {"before_s", finite(s.best_s)},
                        {"after_s", finite(s.candidate_s)},
                        {"speedup", s.candidate_s > 0 ? finite(s.best_s / s.candidate_s) : 0},
                        {"ratio", finite(s.ratio)},
                        {"ratio_ci", {finite(s.ratio_lo), finite(s.ratio_hi)}},
                        {"verdict", to_string(s.verdict)},
                        {"note", s.reason},
                        {"max_abs_error", finite(s.max_abs_error)},
                        {"max_rel_error", finite(s.max_rel_error)},
                        {"bytes_moved", s.bytes_moved}});
  }
  p["shapes"] = shapes;
  nlohmann::json plan = nlohmann::json::array(), reflections = nlohmann::json::array();
  for (const IterationRecord& it : r.iterations) {
    if (it.accepted)
      plan.push_back({{"iteration", it.index},
                      {"bottleneck", string_field(it.plan, "bottleneck")},
                      {"change", string_field(it.plan, "change")},
                      {"expected_gain", string_field(it.plan, "expected_gain")},
                      {"risks", string_field(it.plan, "risks")},
                      {"speedup", it.evaluation ? finite(1 / it.evaluation->geomean_ratio) : 0}});
    reflections.push_back({{"iteration", it.index},
                           {"outcome", it.outcome},
                           {"plan",
                            {{"bottleneck", string_field(it.plan, "bottleneck")},
                             {"change", string_field(it.plan, "change")}}},
                           {"reflection", it.reflection}});
  }
  p["plan"] = plan;
  p["reflections"] = reflections;
  if (!workload_validation.is_null()) {
    p["workload_validation"] = workload_validation;
    p["workload_validation_markdown"] = workload_validation_markdown(workload_validation);
  }
  return p;
}

Result<std::filesystem::path> write_proposal(const Manifest& manifest, const Kernel& kernel,
                                             const EpisodeResult& episode,
                                             const std::filesystem::path& state_dir,
                                             const nlohmann::json& workload_validation) {
  const EpisodeRecord& r = episode.record;
  if (r.best_iteration == 0 || !r.final_evaluation || !r.final_evaluation->improved)
    return std::filesystem::path();
  std::filesystem::path path = state_dir / "proposals" / (kernel.name + ".json");
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  KGATE_RETURN_IF_ERROR(write_file_atomic(
      path,
      make_proposal(manifest, kernel, episode, state_dir, workload_validation).dump(2) + "\n"));
  return path;
}

}  // namespace kgate
