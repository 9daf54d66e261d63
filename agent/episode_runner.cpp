#include "agent/episode_runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <sstream>

#include "agent/agent_context.h"
#include "core/file_util.h"
#include "core/log.h"
#include "core/number_format.h"
#include "runner/profile/roofline.h"

namespace kgate {
namespace {

using Clock = std::chrono::steady_clock;

std::string new_episode_id(const std::string& kernel, uint64_t seed) {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
  std::mt19937_64 rng(seed ^ static_cast<uint64_t>(Clock::now().time_since_epoch().count()));
  char suffix[8];
  std::snprintf(suffix, sizeof suffix, "%04x", static_cast<unsigned>(rng() & 0xffff));
  return std::string(stamp) + "-" + kernel + "-" + suffix;
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

size_t count_of(const std::string& text, const std::string& word) {
  size_t n = 0;
  for (size_t p = text.find(word); p != std::string::npos; p = text.find(word, p + word.size()))
    ++n;
  return n;
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
  const std::string gpu = device.is_object() ? device.value("name", "") : "";
  if (gpu.empty()) return {std::nullopt, "the device is unknown, so no copy ceiling"};
  auto store = profile::CeilingStore::default_store();
  if (auto c = store.find(gpu); c && c->bandwidth_bytes_per_s > 0)
    return {c->bandwidth_bytes_per_s, "copy ceiling of the " + gpu + " measured " + c->measured_at +
                                          ", " + store.file().string()};
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

EpisodeRunner::EpisodeRunner(const Manifest& manifest, const Kernel& kernel, AgentProvider& agent,
                             CandidateEvaluator& evaluator, ExperienceStore* store,
                             EpisodeOptions options)
    : manifest_(manifest),
      kernel_(kernel),
      agent_(agent),
      evaluator_(evaluator),
      store_(store),
      options_(std::move(options)) {}

Result<EpisodeResult> EpisodeRunner::run() {
  const Implementation* impl = kernel_.implementation(options_.backend);
  if (!impl)
    return Error::bad_input(kernel_.name + " has no \"" + options_.backend +
                            "\" implementation in " + manifest_.path.string());
  auto original_text = read_file(manifest_.root / impl->source);
  if (!original_text.ok()) return original_text.error();
  const std::filesystem::path episodes = options_.state_dir / "episodes";
  const std::string family = kernel_.family.empty() ? kernel_.name : kernel_.family;

  EpisodeResult result;
  EpisodeRecord& rec = result.record;
  std::optional<std::filesystem::path> previous;
  if (options_.resume)
    previous = find_unfinished_episode(episodes, kernel_.name, options_.backend, options_.agent);
  if (previous) {
    auto loaded = load_episode(*previous);
    if (!loaded.ok()) return loaded.error();
    rec = std::move(loaded.value());
    result.dir = *previous;
    result.resumed = true;
    // The step in flight when it stopped is redone from scratch.
    while (!rec.iterations.empty() && !rec.iterations.back().done) rec.iterations.pop_back();
    progress("resuming episode " + rec.id + " after iteration " +
             std::to_string(rec.iterations.size()));
  } else {
    rec.id = new_episode_id(kernel_.name, options_.seed);
    rec.kernel = kernel_.name;
    rec.family = family;
    rec.backend = options_.backend;
    rec.agent = options_.agent;
    rec.seed = options_.seed;
    rec.manifest = manifest_.path.string();
    rec.started_at = utc_now();
    result.dir = episodes / rec.id;
    progress("episode " + rec.id + " on " + kernel_.name + " (" + options_.backend + ", agent " +
             options_.agent + ")");
  }
  rec.status = "running";
  rec.options = {{"max_iters", options_.max_iters},
                 {"patience", options_.patience},
                 {"budget_s", options_.budget_s},
                 {"seed", options_.seed},
                 {"replan_after", options_.replan_after}};
  const std::filesystem::path dir = result.dir;
  auto save = [&]() {
    rec.updated_at = utc_now();
    return save_episode(dir, rec);
  };
  KGATE_RETURN_IF_ERROR(save());

  // The original: the repository's file with the manifest's default tunables.
  Candidate original;
  original.source_text =
      *original_text;  // compiled from this text, so a later edit of the file cannot mix in
  original.tunables = impl->default_tunables();
  Candidate best = original;
  std::string best_source = *original_text;
  if (rec.best_iteration > 0) {
    auto text = read_file(dir / rec.best_file);
    if (!text.ok()) return text.error().with_context("resuming " + rec.id);
    best_source = *text;
    best.source_text = best_source;
    best.tunables =
        tunables_from_json(rec.best_candidate.value("tunables", nlohmann::json::object()));
    best.flags = flags_from_json(rec.best_candidate.value("flags", nlohmann::json::array()));
  }

  const auto start = Clock::now();
  const double elapsed_before = rec.elapsed_s;
  auto elapsed = [&]() {
    return elapsed_before + std::chrono::duration<double>(Clock::now() - start).count();
  };

  if (!rec.baseline) {
    progress("timing the original of " + kernel_.name);
    auto base = evaluator_.baseline(original);
    if (!base.ok()) return base.error();
    if (!base->compiled)
      return Error::bad_input("the original " + impl->source + " does not compile:\n" +
                              base->compile_digest);
    if (!base->correct)
      return Error::check_failed("the original " + kernel_.name +
                                 " fails its check: " + base->summary);
    rec.baseline = *base;
    rec.elapsed_s = elapsed();
    KGATE_RETURN_IF_ERROR(save());
  }

  std::string stop_reason;
  std::string replan;  // the latest forced re-plan, followed by the next candidate
  while (true) {
    int n = static_cast<int>(rec.iterations.size());
    if (n >= options_.max_iters) {
      stop_reason = "iteration cap (" + std::to_string(options_.max_iters) + ") reached";
      break;
    }
    // At least one iteration whatever the budget: timing the original (and
    // computing its references) can use a short budget up alone, and an
    // episode that gated no candidate has learned nothing.
    if (n > 0 && options_.budget_s > 0 && elapsed() >= options_.budget_s) {
      stop_reason = "time budget (" + format_number(options_.budget_s) + " s) used";
      break;
    }
    int without_gain = 0;
    for (int i = n - 1; i >= 0 && !rec.iterations[i].accepted; --i) ++without_gain;
    if (options_.patience > 0 && without_gain >= options_.patience) {
      stop_reason = std::to_string(without_gain) +
                    " iterations in a row without an improvement above the gate's threshold";
      break;
    }
    // Compile failures in a row since the last re-plan.
    std::vector<std::string> digests;
    for (int i = n - 1; i >= 0 && is_compile_failure(rec.iterations[i]); --i) {
      digests.insert(digests.begin(), rec.iterations[i].compile_digest);
      if (!rec.iterations[i].replan_prompt.empty()) break;
    }

    IterationRecord it;
    it.index = n + 1;
    it.started_at = utc_now();
    const auto it_start = Clock::now();
    progress("iteration " + std::to_string(it.index) + " of " + std::to_string(options_.max_iters));

    std::vector<Lesson> lessons;
    std::string bottleneck =
        classify_bottleneck(best_timing(rec), best_resources(rec), options_.backend);
    if (store_) {
      auto l = store_->relevant(family, options_.backend, bottleneck, 5);
      if (l.ok())
        lessons = std::move(l.value());
      else
        warn(l.error().message);
    }
    ContextInput ctx;
    ctx.manifest = &manifest_;
    ctx.kernel = &kernel_;
    ctx.impl = impl;
    ctx.best_source = best_source;
    ctx.best = best;
    ctx.best_iteration = rec.best_iteration;
    ctx.best_timing = best_timing(rec);
    ctx.best_resources = best_resources(rec);
    ctx.iterations = &rec.iterations;
    ctx.lessons = lessons;
    ctx.iteration = it.index;
    ctx.max_iterations = options_.max_iters;
    ctx.seed = options_.seed;
    ctx.workload_focus = options_.workload_focus;
    if (n > 0) {
      const IterationRecord& last = rec.iterations.back();
      if (!last.failure.empty())
        ctx.feedback = "iteration " + std::to_string(last.index) + ": " + last.failure;
    }

    if (static_cast<int>(digests.size()) >= options_.replan_after) {
      progress(std::to_string(digests.size()) +
               " compile failures in a row: asking for a re-plan first");
      AgentRequest rp = build_replan_request(ctx, digests);
      auto answer = agent_.ask(rp);
      if (!answer.ok()) {
        rec.stop_reason = "agent failed: " + answer.error().message;
        (void)save();
        return answer.error().with_context("asking " + agent_.name() + " to re-plan");
      }
      it.replan_prompt = rp.prompt;
      it.replan_answer = *answer;
      replan = *answer;
    }
    ctx.replan = replan;

    AgentRequest request = build_propose_request(ctx);
    it.prompt = request.system + "\n\n" + request.prompt;
    it.context_sizes = request.context["sizes"];
    rec.iterations.push_back(it);
    KGATE_RETURN_IF_ERROR(save());  // the prompt is on disk before the provider is asked
    auto answer = agent_.ask(request);
    if (!answer.ok()) {
      rec.iterations.pop_back();
      rec.stop_reason = "agent failed: " + answer.error().message;
      rec.elapsed_s = elapsed();
      (void)save();
      return answer.error().with_context("asking " + agent_.name() + " for a candidate");
    }
    it.answer = *answer;
    AgentAnswer parsed = parse_agent_answer(it.answer);
    it.plan = parsed.to_json();

    // The agent may end the episode itself ("STOP: reason").
    if (!parsed.code && it.answer.rfind("STOP:", 0) == 0) {
      stop_reason = "the agent stopped: " + first_sentences(it.answer.substr(5), 2);
      rec.iterations.pop_back();
      break;
    }

    Candidate cand;
    cand.tunables = best.tunables;
    cand.flags = parsed.flags.empty() ? best.flags : parsed.flags;
    std::string invalid;
    for (const auto& [k, v] : parsed.tunables) {
      const Tunable* t = nullptr;
      for (const Tunable& x : impl->tunables)
        if (x.name == k) t = &x;
      if (!t)
        invalid += "tunable " + k + " is not declared in the manifest; ";
      else if (std::find(t->values.begin(), t->values.end(), v) == t->values.end())
        invalid +=
            "tunable " + k + "=" + std::to_string(v) + " is not one of the manifest's values; ";
      else
        cand.tunables[k] = v;
    }
    if (!parsed.code) {
      it.outcome = "no-code";
      it.failure =
          "the answer had no usable kernel: give the complete source file in one fenced code block";
    } else if (parsed.code->find(impl->entry) == std::string::npos) {
      it.outcome = "invalid";
      it.failure = "the code does not define the entry function `" + impl->entry +
                   "`; keep its name and signature";
    } else if (count_of(*parsed.code, "__global__") >
               std::max<size_t>(1, count_of(*original_text, "__global__"))) {
      it.outcome = "invalid";
      it.failure = "the code adds kernels the manifest does not declare; keep one __global__ entry";
    } else if (!invalid.empty()) {
      it.outcome = "invalid";
      it.failure = invalid;
    }

    if (parsed.code) {
      cand.source_text = *parsed.code;
      char name[32];
      std::snprintf(name, sizeof name, "iter-%02d", it.index);
      it.candidate_file = std::string(name) + candidate_extension(*impl);
      KGATE_RETURN_IF_ERROR(write_file_atomic(dir / it.candidate_file, *parsed.code));
    }
    it.candidate = cand.to_json();

    if (it.outcome.empty()) {
      // A candidate identical to one already gated would only measure noise.
      std::string fp = cand.fingerprint();
      if (fp == best.fingerprint()) {
        it.outcome = "no-gain";
        it.failure = "the candidate is identical to the current best";
      }
    }
    if (it.outcome.empty()) {
      progress("gating " + it.candidate_file + " (" + settings_diff(best, cand) + ")");
      auto eval = evaluator_.evaluate(best, cand);
      if (!eval.ok()) {
        rec.stop_reason = "gate failed: " + eval.error().message;
        rec.elapsed_s = elapsed();
        (void)save();
        return eval.error();
      }
      it.evaluation = *eval;
      if (!eval->compiled) {
        it.outcome = eval->refused ? "refused" : "compile-error";
        it.compile_digest = eval->compile_digest;
        it.failure = eval->refused ? eval->compile_digest
                                   : "the candidate does not compile:\n" + eval->compile_digest;
      } else if (!eval->correct) {
        it.outcome = "wrong";
        it.failure = eval->summary;
      } else if (eval->improved) {
        it.outcome = "improved";
        it.accepted = true;
      } else {
        bool slower =
            std::any_of(eval->shapes.begin(), eval->shapes.end(), [](const ShapeEvaluation& s) {
              return s.counts && s.verdict == ShapeVerdict::kSlower;
            });
        it.outcome = slower ? "slower" : "no-gain";
      }
      progress("iteration " + std::to_string(it.index) + ": " + it.outcome + " — " + eval->summary);
    } else {
      progress("iteration " + std::to_string(it.index) + ": " + it.outcome + " — " + it.failure);
    }
    if (it.outcome != "compile-error" && it.outcome != "refused") replan.clear();

    // Reflect: why did it come out this way?
    rec.iterations.back() = it;
    AgentRequest reflect = build_reflect_request(ctx, it);
    auto reflection = agent_.ask(reflect);
    it.reflection = reflection.ok() ? bounded(*reflection, 2000)
                                    : "(no reflection: " + reflection.error().message + ")";

    double speedup = it.evaluation && it.evaluation->correct ? 1 / it.evaluation->geomean_ratio : 0;
    const std::string diff = settings_diff(best, cand);  // before the best moves
    if (it.accepted) {
      best = cand;
      best_source = *cand.source_text;
      rec.best_iteration = it.index;
      rec.best_file = it.candidate_file;
      rec.best_candidate = cand.to_json();
      rec.best_speedup *= speedup;
    }
    if (store_) {
      Lesson l;
      l.kernel = kernel_.name;
      l.family = family;
      l.backend = options_.backend;
      l.bottleneck = bottleneck;
      l.change = "settings: " + diff;
      std::string change = first_sentences(it.plan.value("change", std::string()), 1);
      if (!change.empty()) l.change += "; " + change;
      l.outcome = it.outcome;
      l.speedup = speedup;
      l.reflection = it.reflection;
      l.episode_id = rec.id;
      if (Status s = store_->add(l); !s.ok()) warn(s.error().message);
    }
    it.done = true;
    it.seconds = std::chrono::duration<double>(Clock::now() - it_start).count();
    rec.iterations.back() = it;
    rec.elapsed_s = elapsed();
    KGATE_RETURN_IF_ERROR(save());
  }

  // Before/after evidence: the best against the original, on every shape.
  if (rec.best_iteration > 0) {
    progress("gating the best (iteration " + std::to_string(rec.best_iteration) +
             ") against the original");
    auto final_eval = evaluator_.confirm(original, best);
    if (!final_eval.ok()) {
      rec.stop_reason = "final gate failed: " + final_eval.error().message;
      (void)save();
      return final_eval.error();
    }
    rec.final_evaluation = *final_eval;
  }
  {  // What bounds the best, shape by shape, for the record and the summary.
    const bool final_device = rec.final_evaluation && rec.final_evaluation->device.is_object();
    auto [ceiling, note] =
        copy_ceiling(options_.backend, final_device   ? rec.final_evaluation->device
                                       : rec.baseline ? rec.baseline->device
                                                      : nlohmann::json());
    rec.bounds = episode_bounds(best_timing(rec), best_resources(rec), ceiling, note,
                                launch_floor_s(options_.backend));
  }
  rec.status = "finished";
  rec.stop_reason = stop_reason;
  rec.elapsed_s = elapsed();
  KGATE_RETURN_IF_ERROR(save());
  progress("episode " + rec.id + " finished: " + stop_reason + "; best: iteration " +
           std::to_string(rec.best_iteration) +
           (rec.final_evaluation ? ", " + format_number(1 / rec.final_evaluation->geomean_ratio) +
                                       "x over the original"
                                 : ""));
  result.best_source = best_source;
  return result;
}

}  // namespace kgate
