#pragma once
// What an episode asks of the gate: is this candidate correct on every shape,
// and is it faster than the current best beyond noise? The episode loop only
// sees this interface; the A/B engine behind it is the gate's gate_kernel
// (agent/gate_evaluator.h).
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/candidate_launch.h"
#include "core/expression.h"
#include "core/manifest.h"
#include "core/status.h"
#include "gate/verdict.h"
#include "runner/program.h"

namespace kgate {

// One version of a kernel: its source (none: the file in the repository),
// the tunables it is built with, extra compiler flags and, when it changes
// the launch, its own launch (none: the manifest's).
struct Candidate {
  std::optional<std::string> source_text;
  Variables tunables;                     // names missing take the manifest's defaults
  std::vector<std::string> flags;         // extra flags, checked by compile_policy
  std::optional<CandidateLaunch> launch;  // checked by check_candidate_launch
  // The name compile errors give the source (the candidate's file in the
  // episode folder); empty: the implementation's own file name. Not part of
  // the fingerprint.
  std::string file_name;

  nlohmann::json to_json() const;  // source_text left out (stored in files)
  // A short key for "already tried": a hash of everything above.
  std::string fingerprint() const;
};

// kChecked: correct, not timed (the shape's timing is "off").
enum class ShapeVerdict { kFaster, kSlower, kSame, kInconclusive, kWrong, kError, kChecked };
std::string_view to_string(ShapeVerdict verdict);
// The gate's verdict as a shape's verdict in an episode ("new": same).
ShapeVerdict to_shape_verdict(Verdict verdict);

struct ShapeEvaluation {
  std::string shape, phase;
  ShapeVerdict verdict = ShapeVerdict::kError;
  std::string reason;  // why wrong or errored, or why a change counts as none
  // Whether its change counts as a gain or a loss (false: a report-only or
  // untimed shape, or both sides at the launch floor; gate/shape_decision.h).
  bool counts = true;
  double best_s = 0;                  // median of the current best
  double candidate_s = 0;             // median of the candidate
  double ratio = 0;                   // candidate / best: below 1 is faster
  double ratio_lo = 0, ratio_hi = 0;  // confidence interval on the ratio
  double max_abs_error = 0, max_rel_error = 0;
  size_t bytes_moved = 0;
  int samples = 0;

  nlohmann::json to_json() const;
  static ShapeEvaluation from_json(const nlohmann::json& j);
};

// The outcome of gating one candidate. Invariant: improved implies correct
// implies compiled; invalid implies !correct.
struct Evaluation {
  bool compiled = false;
  bool refused = false;  // a compiler flag the policy refuses
  // Compiled, but breaks an episode rule (a kernel or exported function the
  // manifest does not declare); `summary` names it. Never timed.
  bool invalid = false;
  std::string compile_digest;  // when !compiled: file, line, kind, message, last lines
  ResourceReport resources;    // the candidate's, when compiled
  bool correct = false;        // passed on every shape
  bool improved = false;       // correct, faster beyond noise, no shape slower beyond policy
  double geomean_ratio = 1;    // over shapes, candidate / best
  std::vector<ShapeEvaluation> shapes;
  std::string summary;  // one line for people and agents
  std::string engine;   // which A/B engine decided ("measure_shape A/B")
  // Where it was timed (DeviceInfo::to_json: name, driver, runtime, peak
  // clock), for the environment a pull request reports; null when unknown.
  nlohmann::json device;

  nlohmann::json to_json() const;
  static Evaluation from_json(const nlohmann::json& j);

  // Decides `improved` and writes the summary once the shapes are timed:
  // improved when some shape is faster, none is worse and the geomean clears
  // `min_improvement`. Both evaluators end this way.
  void conclude(bool any_faster, bool any_worse, double min_improvement);
};

class CandidateEvaluator {
 public:
  virtual ~CandidateEvaluator() = default;
  // Gates `candidate` against `best` on every shape the backend runs.
  // An Error only for infrastructure failures (no compiler, harness lost);
  // everything the candidate does wrong is in the Evaluation.
  virtual Result<Evaluation> evaluate(const Candidate& best, const Candidate& candidate) = 0;
  // Times `best` alone on every shape (for the first observation).
  virtual Result<Evaluation> baseline(const Candidate& best) = 0;
  // The episode's last gate, the best against the original: like evaluate,
  // but on inputs no search iteration saw.
  virtual Result<Evaluation> confirm(const Candidate& original, const Candidate& best) {
    return evaluate(original, best);
  }
  // What the evaluator checks beyond the declared shapes, for the record
  // (the misaligned shapes and their seed); null when nothing.
  virtual nlohmann::json extra_checks() const { return nullptr; }
};

}  // namespace kgate
