#include "agent/episode_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <sstream>

#include "agent/agent_context.h"
#include "agent/candidate_rules.h"
#include "agent/persisted_json.h"
#include "core/file_util.h"
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

Variables tunables_from_json(const nlohmann::json& j) {
  Variables v;
  if (j.is_object())
    for (const auto& [k, x] : j.items())
      if (x.is_number_integer()) v[k] = x.get<int64_t>();
  return v;
}

std::vector<std::string> flags_from_json(const nlohmann::json& j) {
  std::vector<std::string> f;
  if (j.is_array())
    for (const auto& x : j)
      if (x.is_string()) f.push_back(x.get<std::string>());
  return f;
}

// "ACCUMULATORS=8 -O3": the settings a candidate changes relative to the best.
std::string settings_diff(const Candidate& from, const Candidate& to) {
  std::string s;
  for (const auto& [k, v] : to.tunables) {
    auto it = from.tunables.find(k);
    if (it == from.tunables.end() || it->second != v)
      s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
  }
  for (const std::string& f : to.flags)
    if (std::find(from.flags.begin(), from.flags.end(), f) == from.flags.end())
      s += (s.empty() ? "" : " ") + f;
  if (to.source_text && from.source_text != to.source_text)
    s += (s.empty() ? "" : " ") + std::string("source edited");
  if (to.launch != from.launch)
    s += (s.empty() ? "" : " ") +
         (to.launch ? "launch " + to.launch->text() : std::string("the manifest's launch"));
  return s.empty() ? "no change" : s;
}

// The timing of the current best, per shape (best_s is its median): the
// final gate's once the episode has one (the freshest), else the gate that
// kept it, else the original's.
std::vector<ShapeEvaluation> best_timing(const EpisodeRecord& r) {
  const Evaluation* kept = r.final_evaluation ? &*r.final_evaluation : nullptr;
  if (!kept && r.best_iteration > 0 && r.best_iteration <= static_cast<int>(r.iterations.size())) {
    const auto& it = r.iterations[r.best_iteration - 1];
    if (it.evaluation) kept = &*it.evaluation;
  }
  if (kept) {
    std::vector<ShapeEvaluation> t = kept->shapes;
    for (ShapeEvaluation& s : t) s.best_s = s.candidate_s;
    return t;
  }
  return r.baseline ? r.baseline->shapes : std::vector<ShapeEvaluation>{};
}

ResourceReport best_resources(const EpisodeRecord& r) {
  if (r.best_iteration > 0 && r.best_iteration <= static_cast<int>(r.iterations.size())) {
    const auto& it = r.iterations[r.best_iteration - 1];
    if (it.evaluation) return it.evaluation->resources;
  }
  return r.baseline ? r.baseline->resources : ResourceReport{};
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
      return {c->bandwidth_bytes_per_s, "copy ceiling of the " + gpu + " measured " +
                                            c->measured_at + ", " + store.file().string()};
  } catch (const nlohmann::json::exception& e) {
    warn(store.file().string() + " cannot be read (" + e.what() + "); `kgate profile` rewrites it");
    return {std::nullopt, "the stored copy ceilings cannot be read"};
  }
  return {std::nullopt, "no copy ceiling stored for the " + gpu +
                            " yet: `kgate profile` measures it once and stores it"};
}

bool is_compile_failure(const IterationRecord& it) {
  return it.outcome == "compile-error" || it.outcome == "refused";
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

// One run of an episode, step by step: open (or resume) the record, time the
// original, then iterations of observe -> plan -> execute -> gate -> reflect
// until a guardrail stops it, then the final gate. Every step that changes
// the record saves it.
class EpisodeLoop {
 public:
  EpisodeLoop(const EpisodeRunner::Parts& parts, const Implementation& impl,
              std::string original_text, EpisodeResult& result)
      : p_(parts), impl_(impl), result_(result), rec_(result.record) {
    original_.source_text = std::move(original_text);  // compiled from this text, not the file
    original_.tunables = impl.default_tunables();
    original_.file_name = impl.source;
    best_ = original_;
  }

  Status open();
  Status time_original();
  // Why the episode stops before iteration n + 1, or "" to go on.
  std::string guardrail() const;
  // One iteration; `stop_reason` is set when the agent ended the episode.
  Status iterate(std::string& stop_reason);
  Status finish(const std::string& stop_reason);
  // Profiles the current best (0: the original) once, in a child; a
  // failure is recorded, never the episode's.
  Status profile_best();

 private:
  // The current best's profile, if one was taken.
  const ProfileObservation* best_profile() const {
    for (auto it = rec_.profiles.rbegin(); it != rec_.profiles.rend(); ++it)
      if (it->iteration == rec_.best_iteration) return &*it;
    return nullptr;
  }
  // The device's shared-memory limit per block, from any profile that read it.
  int64_t max_shared_bytes() const {
    for (const ProfileObservation& o : rec_.profiles)
      if (auto p = o.profile(); p && p->max_shared_per_block > 0) return p->max_shared_per_block;
    return 0;
  }
  ContextInput observe(const IterationRecord& it, std::string& bottleneck);
  // The agent's answer; a re-plan is asked first after compile failures in a row.
  Result<std::string> plan(ContextInput& ctx, IterationRecord& it);
  // Parses the answer and writes the candidate; a broken rule is the outcome.
  Status execute(IterationRecord& it, const AgentAnswer& answer, Candidate& cand);
  Status gate(IterationRecord& it, const Candidate& cand);
  void reflect(const ContextInput& ctx, IterationRecord& it, const Candidate& cand,
               const std::string& bottleneck);

  Status start_new();
  Status save() {
    rec_.updated_at = utc_now_iso8601();
    return save_episode(result_.dir, rec_);
  }
  // A failure that ends this run: the record stays resumable.
  Error stop_on(const Error& error, const std::string& what) {
    rec_.stop_reason = what + ": " + error.message;
    rec_.elapsed_s = elapsed();
    (void)save();
    return error;
  }
  double elapsed() const {
    return elapsed_before_ + std::chrono::duration<double>(Clock::now() - start_).count();
  }
  void note_extra_checks() {
    nlohmann::json extra = p_.evaluator.extra_checks();
    if (extra.is_object()) rec_.extra_shapes = extra;
  }

  const EpisodeRunner::Parts& p_;
  const Implementation& impl_;
  EpisodeResult& result_;
  EpisodeRecord& rec_;
  Candidate original_, best_;
  Clock::time_point start_ = Clock::now();
  double elapsed_before_ = 0;
  std::string replan_;  // the latest forced re-plan, followed by the next candidate
};

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
      best_.source_text = *text;
      best_.tunables = tunables_from_json(object_field(loaded->best_candidate, "tunables"));
      best_.flags = flags_from_json(array_field(loaded->best_candidate, "flags"));
      best_.launch = CandidateLaunch::from_json(object_field(loaded->best_candidate, "launch"));
      best_.file_name = loaded->best_file;
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
  if (loaded) {
    rec_ = std::move(*loaded);
    result_.dir = *previous;
    result_.resumed = true;
    // The step in flight when it stopped is redone from scratch.
    while (!rec_.iterations.empty() && !rec_.iterations.back().done) rec_.iterations.pop_back();
    progress("resuming episode " + rec_.id + " after iteration " +
             std::to_string(rec_.iterations.size()));
  } else {
    KGATE_RETURN_IF_ERROR(start_new());
  }
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
  const std::string shape = profile_shape(best_timing(rec_), p_.options.workload_phase);
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

ContextInput EpisodeLoop::observe(const IterationRecord& it, std::string& bottleneck) {
  const EpisodeOptions& o = p_.options;
  const ProfileObservation* profile = best_profile();
  // The profile's class where one was taken; the timing heuristic otherwise.
  bottleneck = profile && profile->ok()
                   ? profile->bottleneck
                   : classify_bottleneck(best_timing(rec_), best_resources(rec_), o.backend);
  ContextInput ctx;
  ctx.profile = profile;
  ctx.bottleneck = bottleneck;
  if (p_.store) {
    auto l = p_.store->relevant(rec_.family, o.backend, bottleneck, 5);
    if (l.ok())
      ctx.lessons = std::move(l.value());
    else
      warn(l.error().message);
  }
  ctx.manifest = &p_.manifest;
  ctx.kernel = &p_.kernel;
  ctx.impl = &impl_;
  ctx.best_source = best_.source_text.value_or("");
  ctx.best = best_;
  ctx.best_iteration = rec_.best_iteration;
  ctx.best_timing = best_timing(rec_);
  ctx.best_resources = best_resources(rec_);
  ctx.iterations = &rec_.iterations;
  ctx.iteration = it.index;
  ctx.max_iterations = o.max_iters;
  ctx.seed = o.seed;
  ctx.workload_focus = o.workload_focus;
  if (!rec_.iterations.empty()) {
    const IterationRecord& last = rec_.iterations.back();
    if (!last.failure.empty())
      ctx.feedback = "iteration " + std::to_string(last.index) + ": " + last.failure;
  }
  return ctx;
}

Result<std::string> EpisodeLoop::plan(ContextInput& ctx, IterationRecord& it) {
  // Compile failures in a row since the last re-plan.
  std::vector<std::string> digests;
  for (int i = static_cast<int>(rec_.iterations.size()) - 1;
       i >= 0 && is_compile_failure(rec_.iterations[i]); --i) {
    digests.insert(digests.begin(), rec_.iterations[i].compile_digest);
    if (!rec_.iterations[i].replan_prompt.empty()) break;
  }
  if (static_cast<int>(digests.size()) >= p_.options.replan_after) {
    progress(std::to_string(digests.size()) +
             " compile failures in a row: asking for a re-plan first");
    AgentRequest rp = build_replan_request(ctx, digests);
    auto answer = p_.agent.ask(rp);
    if (!answer.ok())
      return stop_on(answer.error(), "agent failed")
          .with_context("asking " + p_.agent.name() + " to re-plan");
    it.replan_prompt = rp.prompt;
    it.replan_answer = *answer;
    replan_ = *answer;
  }
  ctx.replan = replan_;

  AgentRequest request = build_propose_request(ctx);
  it.prompt = request.system + "\n\n" + request.prompt;
  it.context_sizes = request.context["sizes"];
  rec_.iterations.push_back(it);
  KGATE_RETURN_IF_ERROR(save());  // the prompt is on disk before the provider is asked
  auto answer = p_.agent.ask(request);
  if (!answer.ok()) {
    rec_.iterations.pop_back();
    return stop_on(answer.error(), "agent failed")
        .with_context("asking " + p_.agent.name() + " for a candidate");
  }
  return answer;
}

Status EpisodeLoop::execute(IterationRecord& it, const AgentAnswer& answer, Candidate& cand) {
  ProposedCandidate proposed = candidate_from_answer(answer, best_, impl_);
  cand = proposed.candidate;
  it.failure = answer_rule_failure(answer, proposed, impl_, &it.outcome);
  if (it.outcome.empty()) {
    it.failure = launch_rule_failure(cand, p_.kernel, p_.options.backend, max_shared_bytes());
    if (!it.failure.empty()) it.outcome = "invalid";
  }
  if (answer.code) {
    // Named by when and which iteration: unique across resumes and episodes.
    it.candidate_file = candidate_file_name(utc_now_compact(), it.index, impl_);
    cand.file_name = it.candidate_file;
    KGATE_RETURN_IF_ERROR(write_file_atomic(result_.dir / it.candidate_file, *answer.code));
  }
  it.candidate = cand.to_json();
  // A candidate identical to the best would only measure noise.
  if (it.outcome.empty() && cand.fingerprint() == best_.fingerprint()) {
    it.outcome = "no-gain";
    it.failure = "the candidate is identical to the current best";
  }
  return {};
}

Status EpisodeLoop::gate(IterationRecord& it, const Candidate& cand) {
  if (!it.outcome.empty()) {
    progress("iteration " + std::to_string(it.index) + ": " + it.outcome + " — " + it.failure);
    return {};
  }
  progress("gating " + it.candidate_file + " (" + settings_diff(best_, cand) + ")");
  auto eval = p_.evaluator.evaluate(best_, cand);
  if (!eval.ok()) return stop_on(eval.error(), "gate failed");
  note_extra_checks();
  it.evaluation = *eval;
  if (!eval->compiled) {
    it.outcome = eval->refused ? "refused" : "compile-error";
    it.compile_digest = eval->compile_digest;
    it.failure = eval->refused ? eval->compile_digest : "the candidate does not compile";
  } else if (eval->invalid) {
    it.outcome = "invalid";
    it.failure = eval->summary;
  } else if (!eval->correct) {
    it.outcome = "wrong";
    it.failure = eval->summary;
  } else if (eval->improved) {
    it.outcome = "improved";
    it.accepted = true;
  } else {
    bool slower = std::any_of(
        eval->shapes.begin(), eval->shapes.end(),
        [](const ShapeEvaluation& s) { return s.counts && s.verdict == ShapeVerdict::kSlower; });
    it.outcome = slower ? "slower" : "no-gain";
  }
  progress("iteration " + std::to_string(it.index) + ": " + it.outcome + " — " + eval->summary);
  return {};
}

void EpisodeLoop::reflect(const ContextInput& ctx, IterationRecord& it, const Candidate& cand,
                          const std::string& bottleneck) {
  rec_.iterations.back() = it;
  AgentRequest request = build_reflect_request(ctx, it);
  auto reflection = p_.agent.ask(request);
  it.reflection = reflection.ok() ? bounded(*reflection, 2000)
                                  : "(no reflection: " + reflection.error().message + ")";
  double speedup = it.evaluation && it.evaluation->correct ? 1 / it.evaluation->geomean_ratio : 0;
  if (!std::isfinite(speedup)) speedup = 0;
  const std::string diff = settings_diff(best_, cand);  // before the best moves
  if (it.accepted) {
    best_ = cand;
    rec_.best_iteration = it.index;
    rec_.best_file = it.candidate_file;
    rec_.best_candidate = cand.to_json();
    rec_.best_speedup *= speedup;
  }
  if (p_.store) {
    Lesson l;
    l.kernel = p_.kernel.name;
    l.family = rec_.family;
    l.backend = p_.options.backend;
    l.bottleneck = bottleneck;
    l.change = "settings: " + diff;
    std::string change = first_sentences(string_field(it.plan, "change"), 1);
    if (!change.empty()) l.change += "; " + change;
    l.outcome = it.outcome;
    l.speedup = speedup;
    l.reflection = it.reflection;
    l.episode_id = rec_.id;
    if (Status s = p_.store->add(l); !s.ok()) warn(s.error().message);
  }
}

Status EpisodeLoop::iterate(std::string& stop_reason) {
  IterationRecord it;
  it.index = static_cast<int>(rec_.iterations.size()) + 1;
  it.started_at = utc_now_iso8601();
  const auto it_start = Clock::now();
  progress("iteration " + std::to_string(it.index) + " of " + std::to_string(p_.options.max_iters));

  std::string bottleneck;
  ContextInput ctx = observe(it, bottleneck);
  auto answer = plan(ctx, it);
  if (!answer.ok()) return answer.error();
  it.answer = *answer;
  AgentAnswer parsed = parse_agent_answer(it.answer);
  it.plan = parsed.to_json();
  // The agent may end the episode itself ("STOP: reason").
  if (!parsed.code && it.answer.rfind("STOP:", 0) == 0) {
    stop_reason = "the agent stopped: " + first_sentences(it.answer.substr(5), 2);
    rec_.iterations.pop_back();
    return {};
  }
  Candidate cand;
  KGATE_RETURN_IF_ERROR(execute(it, parsed, cand));
  KGATE_RETURN_IF_ERROR(gate(it, cand));
  if (!is_compile_failure(it)) replan_.clear();
  reflect(ctx, it, cand, bottleneck);
  it.done = true;
  rec_.iterations.back() = it;
  // The new best is observed as the original was, before the next plan.
  if (it.accepted) KGATE_RETURN_IF_ERROR(profile_best());
  it.seconds = std::chrono::duration<double>(Clock::now() - it_start).count();
  rec_.iterations.back() = it;
  rec_.elapsed_s = elapsed();
  return save();
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
  rec_.bounds = episode_bounds(best_timing(rec_), best_resources(rec_), ceiling, note,
                               launch_floor_s(p_.options.backend));
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

Result<EpisodeResult> EpisodeRunner::run() {
  const Implementation* impl = parts_.kernel.implementation(parts_.options.backend);
  if (!impl)
    return Error::bad_input(parts_.kernel.name + " has no \"" + parts_.options.backend +
                            "\" implementation in " + parts_.manifest.path.string());
  auto original_text = read_file(parts_.manifest.root / impl->source);
  if (!original_text.ok()) return original_text.error();
  EpisodeResult result;
  EpisodeLoop loop(parts_, *impl, *original_text, result);
  KGATE_RETURN_IF_ERROR(loop.open());
  KGATE_RETURN_IF_ERROR(loop.time_original());
  KGATE_RETURN_IF_ERROR(loop.profile_best());
  std::string stop_reason;
  while (stop_reason.empty()) {
    stop_reason = loop.guardrail();
    if (!stop_reason.empty()) break;
    KGATE_RETURN_IF_ERROR(loop.iterate(stop_reason));
  }
  KGATE_RETURN_IF_ERROR(loop.finish(stop_reason));
  return result;
}

}  // namespace kgate
