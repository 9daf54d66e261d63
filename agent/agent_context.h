#pragma once
// Builds what the agent observes each iteration: the current best source,
// its profile (the summary `kgate profile` prints, episode_profile.h; timing
// and the compiler's resource report where no profile could be taken), the
// last results, the family's lessons, and a folded list of approaches
// already tried. Every section has a size cap; the sizes are reported with
// the request.
#include <optional>
#include <string>
#include <vector>

#include "agent/agent_request.h"
#include "agent/candidate_evaluator.h"
#include "agent/episode_profile.h"
#include "agent/episode_record.h"
#include "agent/experience_store.h"
#include "core/manifest.h"

namespace kgate {

struct ContextLimits {
  // The source is sent whole up to here: the answer is the complete file, so
  // a model shown a cut one cannot write it (candle's reduce.cu is 28 kB).
  size_t source_chars = 256000;
  size_t profile_chars = 6000;  // the summary (at most 600 words) and a line per shape
  size_t recent_chars = 6000;
  size_t lessons_chars = 3000;
  size_t tried_chars = 3000;
  size_t digests_chars = 8000;  // distinct compile digests, each once, newest first
  int recent_results = 4;       // the last three to five
  int lessons = 5;
};

struct ContextInput {
  const Manifest* manifest = nullptr;
  const Kernel* kernel = nullptr;
  const Implementation* impl = nullptr;
  std::string best_source;  // text of the current best
  Candidate best;           // its tunables and flags
  int best_iteration = 0;
  std::vector<ShapeEvaluation> best_timing;  // per shape, best_s = the best's median
  ResourceReport best_resources;
  std::string profile_summary;  // replaces the profile section when set (tests)
  // The current best's profile (null: none taken); its class, or the timing
  // heuristic's where there is none.
  const ProfileObservation* profile = nullptr;
  std::string bottleneck;
  const std::vector<IterationRecord>* iterations = nullptr;  // done ones
  std::vector<Lesson> lessons;
  std::string feedback;        // why the previous iteration failed, for the agent
  int reflect_on = 0;          // an iteration to reflect on first, in the answer (0: none)
  std::string replan;          // the agent's forced re-plan, to follow now
  std::string workload_focus;  // phases and shapes that matter in the workload
  int iteration = 1;
  int max_iterations = 1;
  uint64_t seed = 0;
  ContextLimits limits;
};

// Without a profile: "register-limited" (spills, or more than 128
// registers), "launch-bound" (most shapes within a few launch latencies) or
// "unknown". Timing alone cannot tell memory from compute or latency (a
// kernel at 0.2 GB/s may be bound by conversions), so it does not guess.
std::string classify_bottleneck(const std::vector<ShapeEvaluation>& timing,
                                const ResourceReport& resources, const std::string& backend);

// A few launch latencies on `backend`: a shape faster than this is bound by
// its launch, not its work.
double launch_floor_s(const std::string& backend);

// The profile section where no profile was taken: per shape time and
// achieved bandwidth, registers, spills, shared memory, and what timing
// cannot tell.
std::string timing_profile_summary(const std::vector<ShapeEvaluation>& timing,
                                   const ResourceReport& resources, const std::string& backend);

std::string standing_instruction();
AgentRequest build_propose_request(const ContextInput& input);
AgentRequest build_replan_request(const ContextInput& input,
                                  const std::vector<std::string>& digests);
AgentRequest build_reflect_request(const ContextInput& input, const IterationRecord& iteration);

// Cuts `text` to at most `max_chars`, saying so at the end.
std::string bounded(const std::string& text, size_t max_chars);

}  // namespace kgate
