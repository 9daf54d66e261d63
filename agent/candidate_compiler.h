#pragma once
// Compiles candidates of one kernel for one backend, once each: a cache keyed
// by Candidate::fingerprint(), so the current best is compiled a single time
// however many candidates it meets. A flag the numerics policy refuses is the
// candidate's failure (refused), not an error of ours.
#include <map>
#include <string>

#include "agent/candidate_evaluator.h"
#include "runner/backend.h"

namespace kgate {

struct CompiledCandidate {
  bool ok = false;
  bool refused = false;
  std::string digest;  // when !ok
  Program program;     // when ok
};

class CandidateCompiler {
 public:
  // All three must outlive the compiler.
  CandidateCompiler(const Manifest& manifest, const Kernel& kernel, Backend& backend)
      : manifest_(manifest), kernel_(kernel), backend_(backend) {}
  // An Error only for infrastructure (no compiler) or a missing implementation.
  Result<CompiledCandidate> compile(const Candidate& candidate);

 private:
  const Manifest& manifest_;
  const Kernel& kernel_;
  Backend& backend_;
  std::map<std::string, CompiledCandidate> cache_;
};

// Bytes a shape moves (LaunchPlan::traffic_bytes), from the manifest; 0 when unknown.
size_t shape_bytes(const Kernel& kernel, const Implementation* impl, const Shape& shape,
                   const Variables& tunables);

}  // namespace kgate
