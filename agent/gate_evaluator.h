#pragma once
// The CandidateEvaluator backed by the gate (gate/ab_gate.h): the same
// correctness checks, adaptive interleaved A/B sampling, paired ratio
// interval and verdict policy that gate pull requests. Candidates are
// compiled here (CandidateCompiler, so extra flags pass the numerics policy)
// and handed to the gate as programs.
#include "agent/ab_evaluator.h"
#include "agent/candidate_compiler.h"
#include "agent/candidate_evaluator.h"
#include "runner/backend.h"

namespace kgate {

class GateEvaluator : public CandidateEvaluator {
 public:
  // `manifest`, `kernel` and `backend` must outlive the evaluator. From
  // `options`: seed, samples, budget_s per shape, shapes.
  GateEvaluator(const Manifest& manifest, const Kernel& kernel, Backend& backend,
                AbOptions options);

  Result<Evaluation> evaluate(const Candidate& best, const Candidate& candidate) override;
  Result<Evaluation> baseline(const Candidate& best) override;

 private:
  Result<Evaluation> run(const Candidate* best, const Candidate& head);

  const Manifest& manifest_;
  const Kernel& kernel_;
  Backend& backend_;
  AbOptions options_;
  CandidateCompiler compiler_;
  uint64_t round_ = 0;
};

}  // namespace kgate
