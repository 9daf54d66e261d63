#pragma once
// The rules a candidate must keep before it is timed (docs/agent.md, "One
// iteration" and "Guardrails"): on the answer's text, the
// entry is defined and only declared tunables with declared values are set;
// on the compiled module, no kernel or exported function the manifest does
// not declare (CandidateCompiler reads the symbol table); on the seeded
// misaligned shapes, correct results. A broken rule is the iteration's
// outcome, fed back to the agent, never an error of the episode.
#include <optional>
#include <string>

#include "agent/agent_answer.h"
#include "agent/candidate_compiler.h"
#include "agent/candidate_evaluator.h"
#include "agent/misaligned_check.h"

namespace kgate {

// The candidate an answer describes, starting from `best`: the answer's
// source, its tunables over the best's, its flags (or the best's), its
// launch (or the best's; one equal to the manifest's is none). `invalid`
// says which of the answer's settings break the manifest ("" when none).
struct ProposedCandidate {
  Candidate candidate;
  std::string invalid;
};
ProposedCandidate candidate_from_answer(const AgentAnswer& answer, const Candidate& best,
                                        const Implementation& impl);

// Text rules on an answer: "" when it may be compiled, else what the agent
// is told ("no-code" or "invalid" in `outcome`).
std::string answer_rule_failure(const AgentAnswer& answer, const ProposedCandidate& proposed,
                                const Implementation& impl, std::string* outcome);

// The launch rule: "" when `candidate` keeps the manifest's launch or
// carries one that check_candidate_launch accepts on every shape of
// `kernel` on `backend`, else what the agent is told.
// `max_shared_bytes`: the device's limit per block, 0 when not known.
std::string launch_rule_failure(const Candidate& candidate, const Kernel& kernel,
                                const std::string& backend, int64_t max_shared_bytes);

// The manifest entry a side is planned from: a copy of `kernel` with the
// candidate's own launch, or nullopt when it has none (the manifest's).
std::optional<Kernel> kernel_for(const Kernel& kernel, const std::string& backend,
                                 const Candidate& candidate);

// The checks between compiling and timing, for both evaluators: fills `e`
// and returns true when `head` is rejected (an undeclared entry point:
// e.invalid; wrong on a misaligned shape: a `wrong` shape in e.shapes).
// `trusted` (the best it is gated against, or null for a baseline) decides
// once which misaligned shapes hold.
// `head_kernel`: the candidate's manifest entry when it has its own launch
// (kernel_for), null for the manifest's.
Result<bool> reject_before_timing(const CompiledCandidate& head, const Candidate& candidate,
                                  const CompiledCandidate* trusted, MisalignedCheck& misaligned,
                                  Evaluation& e, const Kernel* head_kernel = nullptr);

}  // namespace kgate
