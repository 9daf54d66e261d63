#pragma once
// The durable record of one episode: <state>/episodes/<id>/episode.json,
// rewritten atomically after every step so a crash loses at most the step in
// flight and `kgate optimize` resumes from it.
//
// Invariant: iterations[i].index == i + 1; an iteration with `done == false`
// is the one in flight and is redone on resume, unless the episode waits at
// one of its model turns (status "waiting"): then it continues from there.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/agent_answer.h"
#include "agent/candidate_evaluator.h"
#include "agent/episode_bounds.h"
#include "agent/episode_profile.h"
#include "core/status.h"

namespace kgate {

struct IterationRecord {
  int index = 0;
  bool done = false;
  std::string started_at;
  double seconds = 0;
  std::string replan_prompt, replan_answer;  // set when a re-plan was forced first
  std::string prompt;                        // the full text sent
  nlohmann::json context_sizes;              // bytes per context section, and the total
  std::string answer;                        // raw, as received
  nlohmann::json plan;                       // AgentAnswer::to_json()
  std::string candidate_file;                // relative to the episode folder
  nlohmann::json candidate;                  // Candidate::to_json()
  // "improved", "no-gain", "slower", "wrong", "compile-error", "refused",
  // "no-code", "invalid" (breaks a rule: unknown tunable, extra kernels)
  std::string outcome;
  std::string failure;  // what the agent is told when it failed
  std::string compile_digest;
  std::optional<Evaluation> evaluation;
  std::string reflection;
  // The lesson of this iteration (Lesson::to_json) while its reflection is
  // to come with the next plan (EpisodeOptions::reflect_with_next_plan);
  // null once stored.
  nlohmann::json pending_lesson;
  bool accepted = false;  // became the new best
  int turns = 0;          // model turns answered in this iteration (re-plan, propose, reflect)

  bool failed_to_compile() const { return outcome == "compile-error" || outcome == "refused"; }

  nlohmann::json to_json() const;
  static IterationRecord from_json(const nlohmann::json& j);
};

// Where a hand-off episode stopped (agent/handoff_provider.h): the model
// turn whose answer it waits for. Paths are relative to the episode folder.
struct PendingTurn {
  int turn = 0;
  std::string id;    // TurnFiles::id
  std::string task;  // propose, replan, reflect
  int iteration = 0;
  std::string request, answer;  // turns/request-<id>.json, turns/answer-<id>.txt

  nlohmann::json to_json() const;
  static std::optional<PendingTurn> from_json(const nlohmann::json& j);  // none: not one
};

struct EpisodeRecord {
  int version = 1;
  std::string id;
  std::string kernel, family, backend, agent;
  uint64_t seed = 0;
  std::string manifest;  // path as given
  std::string started_at, updated_at;
  std::string status = "running";  // "running", "waiting", "finished", "failed"
  std::string stop_reason;
  nlohmann::json options;              // max_iters, patience, budget_s, ...
  std::optional<Evaluation> baseline;  // the original, timed alone
  // The best so far: iteration 0 is the original.
  int best_iteration = 0;
  std::string best_file;  // relative to the episode folder; empty for the original
  nlohmann::json best_candidate = nlohmann::json::object();
  double best_speedup = 1;                     // product of accepted speedups over the original
  std::optional<Evaluation> final_evaluation;  // best against the original, at the end
  std::optional<EpisodeBounds> bounds;         // what bounds the best, per shape, at the end
  // The seeded misaligned shapes every candidate is checked on
  // (misaligned_shapes.h): {"seed", "shapes": [{name, variables, status}]}.
  nlohmann::json extra_shapes = nlohmann::json::object();
  double elapsed_s = 0;  // wall time used over all runs (resumes add up)
  // Profiles of the original (iteration 0) and of each new best, in order
  // (episode_profile.h); the last one is the current best's when it matches
  // best_iteration.
  std::vector<ProfileObservation> profiles;
  std::vector<IterationRecord> iterations;
  std::optional<PendingTurn> waiting;  // set while status is "waiting"
  // SHA-256 of the kernel's source the episode started from: a resume on
  // another checkout must start from the same text.
  std::string original_sha256;

  nlohmann::json to_json() const;
  static Result<EpisodeRecord> from_json(const nlohmann::json& j);
};

Status save_episode(const std::filesystem::path& dir, const EpisodeRecord& record);
// An Error (never an exception) when the file is missing, not JSON or not a
// record; null and mistyped fields are read as their defaults.
Result<EpisodeRecord> load_episode(const std::filesystem::path& dir);
// The newest episode under `episodes_dir` for kernel/backend/agent whose status
// is "running" (an interrupted one) or "waiting" (a hand-off's), if any. Unreadable records of the
// kernel are skipped with a warning and left on disk.
std::optional<std::filesystem::path> find_unfinished_episode(
    const std::filesystem::path& episodes_dir, const std::string& kernel,
    const std::string& backend, const std::string& agent);

}  // namespace kgate
