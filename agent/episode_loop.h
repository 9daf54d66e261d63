#pragma once
// The steps of one run of an episode (episode_runner.h), shared by the two
// files that implement them: episode_runner.cpp (open or resume the record,
// time and profile the original, the guardrails, the final gate) and
// episode_iteration.cpp (one iteration: observe, plan, execute, gate,
// reflect, and the model turns they ask). Internal to agent/.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "agent/agent_context.h"
#include "agent/episode_runner.h"
#include "agent/episode_turns.h"
#include "core/utc_time.h"

namespace kgate {

// One run of an episode, step by step: open (or resume) the record, time the
// original, then iterations of observe -> plan -> execute -> gate -> reflect
// until a guardrail stops it, then the final gate. Every step that changes
// the record saves it.
class EpisodeLoop {
 public:
  using Clock = std::chrono::steady_clock;

  EpisodeLoop(const EpisodeRunner::Parts& parts, const Implementation& impl,
              std::string original_text, EpisodeResult& result)
      : p_(parts), impl_(impl), result_(result), rec_(result.record), turns_(parts.agent) {
    original_.source_text = std::move(original_text);  // compiled from this text, not the file
    original_.tunables = impl.default_tunables();
    original_.file_name = impl.source;
    best_ = original_;
  }

  // The whole run: open, time the original, iterate, finish. An Error of
  // kind kWaitingForAnswer when it stopped at a turn to wait for its answer.
  Status run();
  Status open();
  Status time_original();
  // Why the episode stops before iteration n + 1, or "" to go on.
  std::string guardrail() const;
  // Whether the iteration in flight is picked up where the episode waited.
  bool continuing() const {
    return !rec_.iterations.empty() && !rec_.iterations.back().done &&
           turns_.continues(rec_.iterations.back().index);
  }
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
  // Asks for the reflection (a provider that answers later waits for it
  // here) and keeps the candidate when it was accepted.
  Status reflect(const ContextInput& ctx, IterationRecord& it, const Candidate& cand,
                 const std::string& bottleneck);
  // The reflection on `iteration` that came with the next plan: kept in its
  // record, and its lesson stored.
  void keep_reflection(int iteration, const std::string& reflection);
  // One model turn of iteration `it` (episode_turns.h); `request` becomes the
  // one handed off when the episode continues at it. A provider that answers
  // later leaves the record waiting at the turn when it has no answer.
  Result<std::string> ask(IterationRecord& it, AgentRequest& request);
  // A failed ask that ends the run: the iteration in flight is dropped
  // (redone on resume), unless the episode waits at it.
  Error failed_turn(const Error& error, const std::string& what) {
    if (p_.agent.answers_later()) return error;
    rec_.iterations.pop_back();
    return stop_on(error, "agent failed").with_context(what);
  }
  double iteration_seconds() const {
    return iteration_seconds_before_ +
           std::chrono::duration<double>(Clock::now() - iteration_start_).count();
  }

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
  EpisodeTurns turns_;
  std::vector<IterationRecord> done_;  // the iterations before the one in flight
  Clock::time_point iteration_start_ = Clock::now();
  double iteration_seconds_before_ = 0;  // the iteration's time in earlier runs
};

}  // namespace kgate
