#include "agent/optimize_job.h"

#include <cstdlib>

#include "agent/experience_store.h"
#include "agent/gate_evaluator.h"
#include "agent/in_model_check.h"
#include "agent/persisted_json.h"
#include "agent/proposal.h"
#include "agent/workload_priority.h"
#include "core/file_util.h"
#include "core/log.h"
#include "runner/backend.h"

namespace kgate {

// The in-model validation of the episode's best, as JSON (also written to
// the episode's folder); an error becomes status "error", which blocks the proposal.
nlohmann::json in_model_check(const Manifest& manifest, const Kernel& kernel,
                              const EpisodeResult& episode, const OptimizeOptions& options) {
  progress(kernel.name + ": validating the best candidate inside the workload");
  auto v = validate_candidate_in_workload(manifest, kernel, episode.best_source,
                                          object_field(episode.record.best_candidate, "tunables"),
                                          options.in_model_options, options.episode.state_dir);
  nlohmann::json j =
      v.ok()
          ? v->to_json()
          : nlohmann::json{{"status", "error"}, {"passed", false}, {"reason", v.error().message}};
  if (!array_field(episode.record.best_candidate, "flags").empty())
    j["notes"].push_back("the candidate's compile flags are not applied to the workload's build");
  if (Status s = write_file_atomic(episode.dir / "workload_validation.json", j.dump(2) + "\n");
      !s.ok())
    warn(s.error().message);
  progress(kernel.name + ": in-model: " + string_field(j, "status") + ": " +
           string_field(j, "reason"));
  return j;
}

nlohmann::json OptimizeOutcome::to_json() const {
  return {{"record", episode.record.to_json()},
          {"dir", episode.dir.string()},
          {"resumed", episode.resumed},
          {"waiting", episode.waiting ? episode.waiting->to_json() : nlohmann::json()},
          {"proposal", proposal.string()},
          {"workload_validation", workload_validation}};
}

Result<OptimizeOutcome> OptimizeOutcome::from_json(const nlohmann::json& j) {
  if (!j.is_object()) return Error::infrastructure("an episode's outcome that is not JSON");
  auto record = EpisodeRecord::from_json(j.value("record", nlohmann::json::object()));
  if (!record.ok()) return record.error();
  OptimizeOutcome out;
  out.episode.record = std::move(record.value());
  out.episode.dir = string_field(j, "dir");
  out.episode.resumed = bool_field(j, "resumed", false);
  if (auto w = j.find("waiting"); w != j.end() && w->is_object())
    out.episode.waiting = PendingTurn::from_json(*w);
  out.proposal = string_field(j, "proposal");
  if (auto v = j.find("workload_validation"); v != j.end()) out.workload_validation = *v;
  return out;
}

Result<OptimizeOutcome> optimize_kernel(const Manifest& manifest, const Kernel& kernel,
                                        OptimizeOptions options) {
  auto backend = make_backend(options.episode.backend);
  if (!backend.ok()) return backend.error();
  if (Status s = (*backend)->available(); !s.ok()) return s.error();
  if (!kernel.implementation(options.episode.backend))
    return Error::bad_input(kernel.name + " has no \"" + options.episode.backend +
                            "\" implementation in " + manifest.path.string());
  options.provider.seed = options.episode.seed;
  auto provider = make_provider(options.provider);
  if (!provider.ok()) return provider.error();
  options.episode.agent = options.provider.name;
  options.ab.seed = options.episode.seed;
  std::unique_ptr<CandidateEvaluator> evaluator;
  if (options.evaluator != "gate")
    return Error::bad_input("unknown evaluator '" + options.evaluator + "': use gate");
  evaluator = std::make_unique<GateEvaluator>(manifest, kernel, **backend, options.ab);
  if (options.episode.workload_focus.empty()) {
    // The task list of `kgate extract`, when it ran: which phase matters.
    auto tasks = load_task_list(options.episode.state_dir);
    if (tasks.ok() && tasks->has_value()) {
      options.episode.workload_focus = workload_focus(**tasks, kernel);
      options.episode.workload_phase = hottest_phase(**tasks, kernel);
    } else if (!tasks.ok())
      warn(tasks.error().message + "; the episode runs without the workload's priorities");
  }
  // A damaged experience store costs this episode its lessons, not the
  // episode: the file is left as it is for a person to look at.
  auto store = ExperienceStore::open(options.episode.state_dir / "experience.sqlite");
  if (!store.ok())
    warn(store.error().message +
         "; this episode runs without lessons (none read, none stored). Move the file away "
         "to start a new store.");
  else if (options.lessons_up_to >= 0)
    (*store)->read_up_to(options.lessons_up_to, kernel.name);
  ChildProfilerOptions profiler_options;
  profiler_options.counters = options.profile_counters;
  profiler_options.seed = options.episode.seed;
  ChildProfiler profiler(manifest, **backend, profiler_options);
  EpisodeRunner runner(manifest, kernel, **provider, *evaluator,
                       store.ok() ? store->get() : nullptr, options.episode,
                       options.profile ? &profiler : nullptr);
  auto episode = runner.run();
  if (!episode.ok()) return episode.error();
  OptimizeOutcome out;
  out.episode = std::move(episode.value());
  if (out.episode.waiting) return out;  // not finished: nothing to validate or propose yet
  const EpisodeRecord& rec = out.episode.record;
  bool would_propose =
      rec.best_iteration != 0 && rec.final_evaluation && rec.final_evaluation->improved;
  if (would_propose && options.in_model && !manifest.workload.is_null() &&
      options.episode.backend == "cuda") {
    out.workload_validation = in_model_check(manifest, kernel, out.episode, options);
    if (!bool_field(out.workload_validation, "passed", false)) {
      warn(kernel.name + ": not proposed: " + string_field(out.workload_validation, "reason"));
      return out;
    }
  }
  if (options.write_proposal) {
    auto path = write_proposal(manifest, kernel, out.episode, options.episode.state_dir,
                               out.workload_validation);
    if (!path.ok()) return path.error();
    out.proposal = *path;
    if (!out.proposal.empty()) progress("proposal written to " + out.proposal.string());
  }
  return out;
}

}  // namespace kgate
