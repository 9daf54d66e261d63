#include "agent/episode_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <sstream>

#include "agent/agent_context.h"
#include "agent/candidate_rules.h"
#include "agent/episode_best.h"
#include "agent/episode_loop.h"
#include "agent/episode_turns.h"
#include "agent/handoff_provider.h"
#include "agent/persisted_json.h"
#include "core/file_util.h"
#include "core/hash.h"
#include "core/log.h"
#include "core/number_format.h"
#include "core/utc_time.h"
#include "runner/profile/roofline.h"

namespace kgate {
namespace {

using Clock = std::chrono::steady_clock;

std::string new_episode_id(const std::string& kernel, uint64_t seed) {
  std::mt19937_64 rng(seed ^ static_cast<uint64_t>(Clock::now().time_since_epoch().count()));
  char suffix[8];
  std::snprintf(suffix, sizeof suffix, "%04x", static_cast<unsigned>(rng() & 0xffff));
  return utc_now_compact() + "-" + kernel + "-" + suffix;
}

// The GPU's measured copy ceiling, stored by `kgate profile` (roofline.h),
// and a note saying where it came from or why there is none.
std::pair<std::optional<double>, std::string> copy_ceiling(const std::string& backend,
                                                           const nlohmann::json& device) {
  if (backend != "cuda") return {std::nullopt, "the " + backend + " backend has no copy ceiling"};
  const std::string gpu = string_field(device, "name");
  if (gpu.empty()) return {std::nullopt, "the device is unknown, so no copy ceiling"};
  auto store = profile::CeilingStore::default_store();
  try {
    if (auto c = store.find(gpu); c && c->bandwidth_bytes_per_s > 0)
      // No path: the note reaches pull request bodies, which must not name the runner's files.
      return {c->bandwidth_bytes_per_s,
              "copy ceiling of the " + gpu + " measured " + c->measured_at + " by `kgate profile`"};
  } catch (const nlohmann::json::exception& e) {
    warn(store.file().string() + " cannot be read (" + e.what() + "); `kgate profile` rewrites it");
    return {std::nullopt, "the stored copy ceilings cannot be read"};
  }
  return {std::nullopt, "no copy ceiling stored for the " + gpu +
                            " yet: `kgate profile` measures it once and stores it"};
}

}  // namespace

std::string candidate_extension(const Implementation& impl) {
  std::string ext = std::filesystem::path(impl.source).extension().string();
  if (!ext.empty()) return ext;
  return impl.backend == "cuda" ? ".cu" : ".cpp";
}

std::string candidate_file_name(const std::string& utc_stamp, int iteration,
                                const Implementation& impl) {
  return "candidate-" + utc_stamp + "-it" + std::to_string(iteration) + candidate_extension(impl);
}

Status EpisodeLoop::start_new() {
  const EpisodeOptions& o = p_.options;
  rec_ = EpisodeRecord{};
  rec_.id = new_episode_id(p_.kernel.name, o.seed);
  rec_.kernel = p_.kernel.name;
  rec_.family = p_.kernel.family.empty() ? p_.kernel.name : p_.kernel.family;
  rec_.backend = o.backend;
  rec_.agent = o.agent;
  rec_.seed = o.seed;
  rec_.manifest = p_.manifest.path.string();
  rec_.original_sha256 = sha256_hex(original_.source_text.value_or(""));
  rec_.started_at = utc_now_iso8601();
  result_.dir = o.state_dir / "episodes" / rec_.id;
  result_.resumed = false;
  progress("episode " + rec_.id + " on " + p_.kernel.name + " (" + o.backend + ", agent " +
           o.agent + ")");
  return {};
}

Status EpisodeLoop::open() {
  const EpisodeOptions& o = p_.options;
  std::optional<std::filesystem::path> previous;
  if (o.resume)
    previous =
        find_unfinished_episode(o.state_dir / "episodes", p_.kernel.name, o.backend, o.agent);
  std::optional<EpisodeRecord> loaded;
  if (previous) {
    auto r = load_episode(*previous);
    if (r.ok()) loaded = std::move(r.value());
  }
  if (loaded && loaded->best_iteration > 0) {
    auto text = read_file(*previous / loaded->best_file);
    if (text.ok()) {
      best_ = recorded_candidate(loaded->best_candidate, *text, loaded->best_file);
    } else {
      // Not resumable; the record is kept, marked so it is not tried again.
      warn("cannot resume episode " + loaded->id + ": its best candidate " + loaded->best_file +
           " cannot be read; starting a new episode");
      loaded->status = "failed";
      loaded->stop_reason = "could not be resumed: " + text.error().message;
      (void)save_episode(*previous, *loaded);
      loaded.reset();
    }
  }
  const std::string original_sha = sha256_hex(original_.source_text.value_or(""));
  if (loaded && !loaded->original_sha256.empty() && loaded->original_sha256 != original_sha) {
    const std::string why = "the kernel's source " + impl_.source + " is not the one episode " +
                            loaded->id + " started from";
    // The answer it waits for was written for the other text: say so, change nothing.
    if (loaded->status == "waiting")
      return Error::bad_input(
          why + " (" + (loaded->waiting ? waiting_line(*loaded->waiting) : std::string("waiting")) +
          "): continue it on the same revision, or start a new episode "
          "with --new");
    warn(why + "; starting a new episode");
    loaded.reset();
  }
  if (loaded) {
    rec_ = std::move(*loaded);
    result_.dir = *previous;
    result_.resumed = true;
    // A hand-off continues the iteration in flight at the turn it waits at;
    // anything else in flight when it stopped is redone from scratch.
    std::optional<PendingTurn> waiting;
    if (rec_.status == "waiting" && rec_.waiting && !rec_.iterations.empty() &&
        !rec_.iterations.back().done && rec_.iterations.back().index == rec_.waiting->iteration)
      waiting = rec_.waiting;
    else
      rec_.waiting.reset();
    if (!waiting)
      while (!rec_.iterations.empty() && !rec_.iterations.back().done) rec_.iterations.pop_back();
    turns_.start(result_.dir, waiting);
    progress(waiting ? "continuing episode " + rec_.id + ", " + waiting_line(*waiting)
                     : "resuming episode " + rec_.id + " after iteration " +
                           std::to_string(rec_.iterations.size()));
  } else {
    KGATE_RETURN_IF_ERROR(start_new());
    turns_.start(result_.dir, std::nullopt);
  }
  if (rec_.original_sha256.empty()) rec_.original_sha256 = original_sha;
  rec_.manifest = p_.manifest.path.string();  // where it runs now (it may have moved)
  rec_.status = "running";
  rec_.options = {{"max_iters", o.max_iters},
                  {"patience", o.patience},
                  {"budget_s", o.budget_s},
                  {"seed", o.seed},
                  {"replan_after", o.replan_after}};
  elapsed_before_ = std::isfinite(rec_.elapsed_s) ? rec_.elapsed_s : 0;
  start_ = Clock::now();
  return save();
}

Status EpisodeLoop::time_original() {
  if (rec_.baseline) return {};
  progress("timing the original of " + p_.kernel.name);
  auto base = p_.evaluator.baseline(original_);
  if (!base.ok()) return base.error();
  if (!base->compiled)
    return Error::bad_input("the original " + impl_.source + " does not compile:\n" +
                            base->compile_digest);
  if (!base->correct)
    return Error::check_failed("the original " + p_.kernel.name +
                               " fails its check: " + base->summary);
  rec_.baseline = *base;
  note_extra_checks();
  rec_.elapsed_s = elapsed();
  return save();
}

Status EpisodeLoop::profile_best() {
  if (!p_.profiler) return {};
  const int index = rec_.best_iteration;
  for (const ProfileObservation& o : rec_.profiles)
    if (o.iteration == index) return {};  // taken before a resume
  const std::string shape = profile_shape(recorded_best_timing(rec_), p_.options.workload_phase);
  if (shape.empty()) return {};
  const std::optional<Kernel> entry = kernel_for(p_.kernel, p_.options.backend, best_);
  ProfileObservation o = p_.profiler->profile(best_, entry ? *entry : p_.kernel, shape);
  o.iteration = index;
  if (!o.error.empty())
    warn("no profile of " +
         std::string(index ? "iteration " + std::to_string(index) : "the original") +
         " (the episode goes on with timing): " + o.error);
  else
    progress("profile of " +
             std::string(index ? "iteration " + std::to_string(index) : "the original") + " on " +
             shape + ": " + o.bottleneck + " (" + format_number(o.seconds) + " s)");
  rec_.profiles.push_back(std::move(o));
  return save();
}

std::string EpisodeLoop::guardrail() const {
  const EpisodeOptions& o = p_.options;
  const int n = static_cast<int>(rec_.iterations.size());
  if (n >= o.max_iters) return "iteration cap (" + std::to_string(o.max_iters) + ") reached";
  // At least one iteration whatever the budget: timing the original (and
  // computing its references) can use a short budget up alone, and an
  // episode that gated no candidate has learned nothing.
  if (n > 0 && o.budget_s > 0 && elapsed() >= o.budget_s)
    return "time budget (" + format_number(o.budget_s) + " s) used";
  int without_gain = 0;
  for (int i = n - 1; i >= 0 && !rec_.iterations[i].accepted; --i) ++without_gain;
  if (o.patience > 0 && without_gain >= o.patience)
    return std::to_string(without_gain) +
           " iterations in a row without an improvement above the gate's threshold";
  return "";
}

Status EpisodeLoop::finish(const std::string& stop_reason) {
  // Before/after evidence: the best against the original, on every shape.
  if (rec_.best_iteration > 0) {
    progress("gating the best (iteration " + std::to_string(rec_.best_iteration) +
             ") against the original");
    auto final_eval = p_.evaluator.confirm(original_, best_);
    if (!final_eval.ok()) return stop_on(final_eval.error(), "final gate failed");
    rec_.final_evaluation = *final_eval;
  }
  // What bounds the best, shape by shape, for the record and the summary.
  const nlohmann::json device = rec_.final_evaluation && rec_.final_evaluation->device.is_object()
                                    ? rec_.final_evaluation->device
                                : rec_.baseline ? rec_.baseline->device
                                                : nlohmann::json();
  auto [ceiling, note] = copy_ceiling(p_.options.backend, device);
  rec_.bounds = episode_bounds(recorded_best_timing(rec_), recorded_best_resources(rec_), ceiling,
                               note, launch_floor_s(p_.options.backend));
  // An iteration whose reflection was to come with a plan that never came.
  for (const IterationRecord& it : rec_.iterations)
    if (it.pending_lesson.is_object())
      keep_reflection(it.index, "(the episode ended before its next plan)");
  rec_.status = "finished";
  rec_.stop_reason = stop_reason;
  rec_.elapsed_s = elapsed();
  KGATE_RETURN_IF_ERROR(save());
  progress("episode " + rec_.id + " finished: " + stop_reason + "; best: iteration " +
           std::to_string(rec_.best_iteration) +
           (rec_.final_evaluation ? ", " + format_number(1 / rec_.final_evaluation->geomean_ratio) +
                                        "x over the original"
                                  : ""));
  result_.best_source = best_.source_text.value_or("");
  return {};
}

EpisodeRunner::EpisodeRunner(const Manifest& manifest, const Kernel& kernel, AgentProvider& agent,
                             CandidateEvaluator& evaluator, ExperienceStore* store,
                             EpisodeOptions options, EpisodeProfiler* profiler)
    : parts_{manifest, kernel, agent, evaluator, store, std::move(options), profiler} {}

Status EpisodeLoop::run() {
  KGATE_RETURN_IF_ERROR(open());
  KGATE_RETURN_IF_ERROR(time_original());
  KGATE_RETURN_IF_ERROR(profile_best());
  std::string stop_reason;
  while (stop_reason.empty()) {
    // An iteration continued from an earlier run was started: it finishes.
    if (!continuing()) stop_reason = guardrail();
    if (!stop_reason.empty()) break;
    KGATE_RETURN_IF_ERROR(iterate(stop_reason));
  }
  return finish(stop_reason);
}

Result<EpisodeResult> EpisodeRunner::run() {
  const Implementation* impl = parts_.kernel.implementation(parts_.options.backend);
  if (!impl)
    return Error::bad_input(parts_.kernel.name + " has no \"" + parts_.options.backend +
                            "\" implementation in " + parts_.manifest.path.string());
  auto original_text = read_file(parts_.manifest.root / impl->source);
  if (!original_text.ok()) return original_text.error();
  EpisodeResult result;
  EpisodeLoop loop(parts_, *impl, *original_text, result);
  if (Status s = loop.run(); !s.ok()) {
    // Stopped at a model turn to wait for its answer: a result, not a failure.
    if (s.error().kind == kWaitingForAnswer && result.record.waiting) {
      result.waiting = result.record.waiting;
      return result;
    }
    return s.error();
  }
  return result;
}

}  // namespace kgate
