#include <algorithm>
#include <cmath>

#include "agent/candidate_rules.h"
#include "agent/episode_best.h"
#include "agent/episode_loop.h"
#include "agent/handoff_provider.h"
#include "agent/persisted_json.h"
#include "core/file_util.h"
#include "core/log.h"
#include "core/utc_time.h"

namespace kgate {

ContextInput EpisodeLoop::observe(const IterationRecord& it, std::string& bottleneck) {
  const EpisodeOptions& o = p_.options;
  const ProfileObservation* profile = best_profile();
  // The profile's class where one was taken; the timing heuristic otherwise.
  bottleneck = profile && profile->ok()
                   ? profile->bottleneck
                   : classify_bottleneck(recorded_best_timing(rec_), recorded_best_resources(rec_),
                                         o.backend);
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
  ctx.best_timing = recorded_best_timing(rec_);
  ctx.best_resources = recorded_best_resources(rec_);
  // What came before this iteration, also when it continues in a later run.
  done_.assign(rec_.iterations.begin(),
               rec_.iterations.begin() +
                   std::min<size_t>(rec_.iterations.size(), std::max(0, it.index - 1)));
  ctx.iterations = &done_;
  ctx.iteration = it.index;
  ctx.max_iterations = o.max_iters;
  ctx.seed = o.seed;
  ctx.workload_focus = o.workload_focus;
  if (!done_.empty()) {
    const IterationRecord& last = done_.back();
    if (!last.failure.empty())
      ctx.feedback = "iteration " + std::to_string(last.index) + ": " + last.failure;
  }
  ctx.replan = standing_replan(done_);
  // The last iteration's reflection comes with this plan.
  if (o.reflect_with_next_plan && !done_.empty() && done_.back().done &&
      done_.back().reflection.empty())
    ctx.reflect_on = done_.back().index;
  return ctx;
}

Result<std::string> EpisodeLoop::plan(ContextInput& ctx, IterationRecord& it) {
  // Compile failures in a row since the last re-plan.
  std::vector<std::string> digests;
  for (int i = static_cast<int>(done_.size()) - 1; i >= 0 && done_[i].failed_to_compile(); --i) {
    digests.insert(digests.begin(), done_[i].compile_digest);
    if (!done_[i].replan_prompt.empty()) break;
  }
  // (Asked already when a later run continues this iteration at its propose.)
  if (static_cast<int>(digests.size()) >= p_.options.replan_after && it.replan_prompt.empty()) {
    progress(std::to_string(digests.size()) +
             " compile failures in a row: asking for a re-plan first");
    AgentRequest rp = build_replan_request(ctx, digests);
    rec_.iterations.back() = it;
    auto answer = ask(it, rp);
    if (!answer.ok())
      return failed_turn(answer.error(), "asking " + p_.agent.name() + " to re-plan");
    it.replan_prompt = rp.prompt;
    it.replan_answer = *answer;
  }
  if (!it.replan_prompt.empty()) ctx.replan = it.replan_answer;

  AgentRequest request = build_propose_request(ctx);
  if (!turns_.waits_at(it.index, AgentTask::kPropose)) {
    it.prompt = request.system + "\n\n" + request.prompt;
    it.context_sizes = request.context["sizes"];
  }
  rec_.iterations.back() = it;
  KGATE_RETURN_IF_ERROR(save());  // the prompt is on disk before the provider is asked
  auto answer = ask(it, request);
  if (!answer.ok())
    return failed_turn(answer.error(), "asking " + p_.agent.name() + " for a candidate");
  if (ctx.reflect_on > 0) keep_reflection(ctx.reflect_on, reflection_in(*answer));
  return answer;
}

void EpisodeLoop::keep_reflection(int iteration, const std::string& reflection) {
  for (IterationRecord& earlier : rec_.iterations) {
    if (earlier.index != iteration) continue;
    earlier.reflection =
        reflection.empty() ? "(no REFLECTION line in the next plan)" : bounded(reflection, 2000);
    if (p_.store && earlier.pending_lesson.is_object()) {
      Lesson l = Lesson::from_json(earlier.pending_lesson);
      l.reflection = earlier.reflection;
      if (Status s = p_.store->add(l); !s.ok()) warn(s.error().message);
    }
    earlier.pending_lesson = nullptr;
  }
}

Result<std::string> EpisodeLoop::ask(IterationRecord& it, AgentRequest& request) {
  std::optional<PendingTurn> waiting;
  auto answer = turns_.ask(request, next_turn_number(rec_.iterations, it), it.index, &waiting);
  if (answer.ok()) {
    ++it.turns;
    rec_.waiting.reset();
    return answer;
  }
  if (!p_.agent.answers_later()) return answer.error();
  // The run stops here; the next one continues at this turn.
  if (waiting) rec_.waiting = waiting;
  rec_.status = "waiting";
  rec_.stop_reason = rec_.waiting ? waiting_line(*rec_.waiting) : answer.error().message;
  it.seconds = iteration_seconds();
  rec_.iterations.back() = it;
  rec_.elapsed_s = elapsed();
  KGATE_RETURN_IF_ERROR(save());
  if (answer.error().kind == kWaitingForAnswer)
    progress(rec_.stop_reason + ": " + (result_.dir / rec_.waiting->request).string());
  return answer.error();
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

Status EpisodeLoop::reflect(const ContextInput& ctx, IterationRecord& it, const Candidate& cand,
                            const std::string& bottleneck) {
  rec_.iterations.back() = it;
  const bool later = p_.options.reflect_with_next_plan;  // with the next plan (keep_reflection)
  if (!later) {
    AgentRequest request = build_reflect_request(ctx, it);
    auto reflection = ask(it, request);
    if (!reflection.ok() && p_.agent.answers_later()) return reflection.error();
    it.reflection = reflection.ok() ? bounded(*reflection, 2000)
                                    : "(no reflection: " + reflection.error().message + ")";
  }
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
    if (later)
      it.pending_lesson = l.to_json();
    else if (Status s = p_.store->add(l); !s.ok())
      warn(s.error().message);
  }
  return {};
}

Status EpisodeLoop::iterate(std::string& stop_reason) {
  IterationRecord it;
  const bool continued = continuing();
  if (continued) {
    it = rec_.iterations.back();  // as the run that stopped at one of its turns left it
  } else {
    it.index = static_cast<int>(rec_.iterations.size()) + 1;
    it.started_at = utc_now_iso8601();
  }
  iteration_start_ = Clock::now();
  iteration_seconds_before_ = continued ? it.seconds : 0;
  progress("iteration " + std::to_string(it.index) + " of " + std::to_string(p_.options.max_iters));

  std::string bottleneck;
  ContextInput ctx = observe(it, bottleneck);
  if (!continued) rec_.iterations.push_back(it);  // in flight from its first turn on
  Candidate cand;
  if (turns_.waits_at(it.index, AgentTask::kReflect)) {
    // Gated in the run that stopped: the candidate as that run built it.
    cand = candidate_from_answer(parse_agent_answer(it.answer), best_, impl_).candidate;
    if (!it.candidate_file.empty()) cand.file_name = it.candidate_file;
  } else {
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
    KGATE_RETURN_IF_ERROR(execute(it, parsed, cand));
    KGATE_RETURN_IF_ERROR(gate(it, cand));
  }
  KGATE_RETURN_IF_ERROR(reflect(ctx, it, cand, bottleneck));
  it.done = true;
  rec_.iterations.back() = it;
  // The new best is observed as the original was, before the next plan.
  if (it.accepted) KGATE_RETURN_IF_ERROR(profile_best());
  it.seconds = iteration_seconds();
  rec_.iterations.back() = it;
  rec_.elapsed_s = elapsed();
  return save();
}

}  // namespace kgate
