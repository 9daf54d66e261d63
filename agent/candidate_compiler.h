#pragma once
// Compiles candidates of one kernel for one backend, once each: a cache keyed
// by Candidate::fingerprint(), so the current best is compiled a single time
// however many candidates it meets. A flag the numerics policy refuses is the
// candidate's failure (refused), not an error of ours; so is a compiled
// module that defines a kernel (cuda) or exports a function (host) the
// manifest does not declare, read from the module's symbol table
// (runner/module_symbols.h).
#include <map>
#include <optional>
#include <set>
#include <string>

#include "agent/candidate_evaluator.h"
#include "runner/backend.h"

namespace kgate {

struct CompiledCandidate {
  bool ok = false;
  bool refused = false;
  std::string digest;  // when !ok: compile_error_digest, or the policy's refusal
  // When ok: why the module breaks the rule above ("" when it does not).
  std::string undeclared;
  Program program;  // when ok
};

class CandidateCompiler {
 public:
  // All three must outlive the compiler.
  CandidateCompiler(const Manifest& manifest, const Kernel& kernel, Backend& backend)
      : manifest_(manifest), kernel_(kernel), backend_(backend) {}
  // An Error only for infrastructure (no compiler) or a missing implementation.
  Result<CompiledCandidate> compile(const Candidate& candidate);

 private:
  // Entry points the candidate may define: every kernel of the manifest
  // with this backend's implementation, and whatever the original (the
  // repository's file at its default tunables) already defines.
  Result<std::set<std::string>> allowed_entries();
  std::string undeclared_entries(const Program& program);

  const Manifest& manifest_;
  const Kernel& kernel_;
  Backend& backend_;
  std::map<std::string, CompiledCandidate> cache_;
  std::optional<std::set<std::string>> allowed_;
  bool symbols_unreadable_warned_ = false;
};

// Bytes a shape moves (LaunchPlan::traffic_bytes), from the manifest; 0 when unknown.
size_t shape_bytes(const Kernel& kernel, const Implementation* impl, const Shape& shape,
                   const Variables& tunables);

}  // namespace kgate
