#pragma once
// The CandidateEvaluator used until the gate's A/B API lands: each shape is
// measured with runner/isolated_measure.h (candidate and best interleaved in
// one child process, fresh inputs, poisoned outputs), and decided on the
// ratio of medians with a seeded bootstrap interval. Thresholds come from the
// manifest's gate policy.
//
// Invariant: candidates are compiled once each (CandidateCompiler).
#include <map>
#include <memory>

#include "agent/candidate_compiler.h"
#include "agent/candidate_evaluator.h"
#include "agent/misaligned_check.h"
#include "runner/backend.h"

namespace kgate {

struct AbOptions {
  uint64_t seed = 1;
  int min_samples = 10;  // per program and shape
  int max_samples = 30;
  double budget_s = 1.0;     // timing wall time per shape (the gate policy's budget_s by default)
  double time_limit_s = 60;  // a shape past this is a hang
  std::vector<std::string> shapes;  // empty: every shape the backend runs
  std::vector<std::string> phases;  // empty: every phase; else only shapes of these
  // Whether `shape` is one of the shapes chosen above.
  bool selects(const Shape& shape) const;
  int bootstrap_resamples = 400;
  // Seeded misaligned shapes every candidate is checked on before timing
  // (misaligned_shapes.h); 0: none.
  int misaligned_shapes = 3;
};

class AbEvaluator : public CandidateEvaluator {
 public:
  // `manifest`, `kernel` and `backend` must outlive the evaluator.
  AbEvaluator(const Manifest& manifest, const Kernel& kernel, Backend& backend, AbOptions options);

  Result<Evaluation> evaluate(const Candidate& best, const Candidate& candidate) override;
  Result<Evaluation> baseline(const Candidate& best) override;
  nlohmann::json extra_checks() const override { return misaligned_.to_json(); }

 private:
  Status ensure_reference();
  Result<Evaluation> run(const Candidate* best, const Candidate& head);

  const Manifest& manifest_;
  const Kernel& kernel_;
  Backend& backend_;
  const Implementation* impl_;
  AbOptions options_;
  CandidateCompiler compiler_;
  std::optional<Program> reference_;
  MisalignedCheck misaligned_;
  uint64_t round_ = 0;  // advances the input seed between evaluations
};

// Bootstrap interval of median(head) / median(base) at `confidence`,
// deterministic for `seed`. Returns {lo, hi}.
std::pair<double, double> ratio_interval(const std::vector<double>& head,
                                         const std::vector<double>& base, double confidence,
                                         int resamples, uint64_t seed);

}  // namespace kgate
