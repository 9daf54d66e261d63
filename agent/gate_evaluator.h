#pragma once
// The CandidateEvaluator backed by the gate (gate/ab_gate.h): the same
// correctness checks, adaptive interleaved A/B sampling, paired ratio
// interval and verdict policy that gate pull requests. Candidates are
// compiled here (CandidateCompiler, so extra flags pass the numerics policy)
// and handed to the gate as programs. Search iterations share one input seed
// and the references computed for it (ReferenceCache); the final gate of an
// episode (confirm) runs on new inputs. Before timing, every candidate passes
// candidate_rules.h's checks (no undeclared entry points, correct on the
// seeded misaligned shapes).
#include "agent/ab_options.h"
#include "agent/candidate_compiler.h"
#include "agent/candidate_evaluator.h"
#include "agent/misaligned_check.h"
#include "runner/backend.h"
#include "runner/reference_cache.h"
#include "runner/reference_store.h"

namespace kgate {

class GateEvaluator : public CandidateEvaluator {
 public:
  // `manifest`, `kernel` and `backend` must outlive the evaluator. From
  // `options`: seed, samples, budget_s per shape, shapes.
  GateEvaluator(const Manifest& manifest, const Kernel& kernel, Backend& backend,
                AbOptions options);

  Result<Evaluation> evaluate(const Candidate& best, const Candidate& candidate) override;
  Result<Evaluation> baseline(const Candidate& best) override;
  Result<Evaluation> confirm(const Candidate& original, const Candidate& best) override;
  nlohmann::json extra_checks() const override { return misaligned_.to_json(); }

  const ReferenceCache& reference_cache() const { return references_; }

 private:
  // `fresh_inputs`: a seed no earlier gate of this evaluator used, and
  // nothing kept; otherwise the episode's search seed and kept references.
  Result<Evaluation> run(const Candidate* best, const Candidate& head, bool fresh_inputs = false);

  const Manifest& manifest_;
  const Kernel& kernel_;
  Backend& backend_;
  AbOptions options_;
  CandidateCompiler compiler_;
  // The search gates every candidate on the same inputs (one seed per
  // episode), so their references are drawn and computed once; the final
  // gate (confirm) draws new ones.
  ReferenceCache references_;
  MisalignedCheck misaligned_;
  ReferenceStore store_;  // the same references on disk, across processes
  uint64_t round_ = 0;
};

}  // namespace kgate
