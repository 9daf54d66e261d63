#pragma once
// One optimization episode (docs/agent.md, "One iteration"): observe -> plan ->
// execute -> gate -> reflect, iteration after iteration, keeping the best.
//
// Guardrails: an iteration cap; a stop after `patience` iterations in a row
// without an improvement the gate accepts; a time budget; after three compile
// failures in a row a re-plan (no code) is asked before the next candidate;
// compile errors go back to the agent as a digest; answers without a usable
// kernel, unknown tunables or extra kernels fail the iteration, not the
// episode; every candidate goes through the full gate. Each iteration's
// steps are named functions (episode_runner.cpp): observe, plan, execute,
// gate, reflect.
//
// Invariant: the record on disk is rewritten after every step, candidates
// live only under <state>/episodes/<id>/, and the kernel's own source file is
// never written.
#include <filesystem>
#include <optional>
#include <string>

#include "agent/agent_provider.h"
#include "agent/candidate_evaluator.h"
#include "agent/episode_profile.h"
#include "agent/episode_record.h"
#include "agent/experience_store.h"
#include "core/manifest.h"

namespace kgate {

struct EpisodeOptions {
  std::string backend = "host";
  std::filesystem::path state_dir;  // <repo>/.kgate by default (core/state_dir.h)
  std::string agent = "tuner";      // recorded; resumes match on it
  int max_iters = 8;
  int patience = 4;     // iterations in a row without improvement
  double budget_s = 0;  // wall time over all runs; 0: none; one iteration runs regardless
  uint64_t seed = 1;
  bool resume = true;    // continue an interrupted episode of this kernel
  int replan_after = 3;  // compile failures in a row
  // Which phase and launch shapes matter in the deployed workload (workload_priority.h).
  std::string workload_focus;
  std::string workload_phase;  // the phase that matters most; the profile's shape is of it
  // The agent reflects on an iteration at the start of its next plan
  // instead of in a turn of its own: one model turn per iteration, so a
  // hand-off episode takes one round per iteration, not two.
  bool reflect_with_next_plan = false;
};

struct EpisodeResult {
  EpisodeRecord record;
  std::filesystem::path dir;  // <state>/episodes/<id>
  std::string best_source;    // text of the best version
  bool resumed = false;
  // Set when the run stopped at a model turn to wait for its answer (a
  // hand-off, handoff_provider.h): the episode is not finished, and a later
  // run continues it there.
  std::optional<PendingTurn> waiting;
  bool improved() const { return record.best_iteration != 0; }
};

class EpisodeRunner {
 public:
  // Everything passed must outlive the runner; `store` may be null;
  // `profiler` may be null (no profile: the context shows timing only).
  EpisodeRunner(const Manifest& manifest, const Kernel& kernel, AgentProvider& agent,
                CandidateEvaluator& evaluator, ExperienceStore* store, EpisodeOptions options,
                EpisodeProfiler* profiler = nullptr);

  // Runs (or resumes) the episode to its end, or to a model turn whose
  // answer is not there yet (EpisodeResult::waiting). An Error for bad input
  // (no such implementation, the original fails its own check, a hand-off's
  // answer that is not for its request) or infrastructure (the provider or
  // the harness failed); the record then stays "running" (or "waiting") so
  // the next run resumes it.
  Result<EpisodeResult> run();

  // What the runner was given; its steps (episode_runner.cpp) read it.
  struct Parts {
    const Manifest& manifest;
    const Kernel& kernel;
    AgentProvider& agent;
    CandidateEvaluator& evaluator;
    ExperienceStore* store;  // may be null
    EpisodeOptions options;
    EpisodeProfiler* profiler;  // may be null
  };

 private:
  Parts parts_;
};

// File extension for candidates of `impl` (".cu", ".cpp", ...).
std::string candidate_extension(const Implementation& impl);
// "candidate-20261130T072232Z-it3.cu": a candidate's file in its episode
// folder, named by when it was written and its iteration.
std::string candidate_file_name(const std::string& utc_stamp, int iteration,
                                const Implementation& impl);

}  // namespace kgate
