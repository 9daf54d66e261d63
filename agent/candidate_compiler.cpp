#include "agent/candidate_compiler.h"

#include "runner/launch_plan.h"

namespace kgate {

Result<CompiledCandidate> CandidateCompiler::compile(const Candidate& candidate) {
  std::string key = candidate.fingerprint();
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  const Implementation* impl = kernel_.implementation(backend_.name());
  if (!impl)
    return Error::bad_input(kernel_.name + " has no \"" + backend_.name() + "\" implementation");
  CompileRequest request;
  request.kernel = &kernel_;
  request.impl = impl;
  request.root = manifest_.root;
  request.source_text = candidate.source_text;
  request.tunables = candidate.tunables;
  request.extra_flags = candidate.flags;
  CompiledCandidate c;
  auto outcome = backend_.compile(request);
  if (!outcome.ok()) {
    // The flag policy answers bad_input: the candidate's fault, not ours.
    if (outcome.error().kind != ExitCode::kBadInput) return outcome.error();
    c.refused = true;
    c.digest = outcome.error().message;
  } else if (!outcome->ok) {
    c.digest = outcome->digest();
    if (c.digest.empty()) c.digest = outcome->log;
  } else {
    c.ok = true;
    c.program = outcome->program;
  }
  cache_[key] = c;
  return c;
}

size_t shape_bytes(const Kernel& kernel, const Implementation* impl, const Shape& shape,
                   const Variables& tunables) {
  auto plan = plan_launch(kernel, impl, shape, tunables);
  return plan.ok() ? plan->traffic_bytes() : 0;
}

}  // namespace kgate
