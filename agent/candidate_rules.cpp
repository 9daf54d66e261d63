#include "agent/candidate_rules.h"

#include <algorithm>

#include "core/entry_name.h"

namespace kgate {

ProposedCandidate candidate_from_answer(const AgentAnswer& answer, const Candidate& best,
                                        const Implementation& impl) {
  ProposedCandidate p;
  Candidate& cand = p.candidate;
  cand.tunables = best.tunables;
  cand.flags = answer.flags.empty() ? best.flags : answer.flags;
  for (const auto& [k, v] : answer.tunables) {
    const Tunable* t = nullptr;
    for (const Tunable& x : impl.tunables)
      if (x.name == k) t = &x;
    if (!t)
      p.invalid += "tunable " + k + " is not declared in the manifest; ";
    else if (std::find(t->values.begin(), t->values.end(), v) == t->values.end())
      p.invalid +=
          "tunable " + k + "=" + std::to_string(v) + " is not one of the manifest's values; ";
    else
      cand.tunables[k] = v;
  }
  // Settings the manifest's constraints rule out are never built.
  if (p.invalid.empty())
    if (Status s = impl.check_constraints(cand.tunables); !s.ok())
      p.invalid += s.error().message + "; ";
  if (answer.code) cand.source_text = *answer.code;
  cand.launch = best.launch;
  if (!answer.launch.is_null()) {
    auto launch = CandidateLaunch::from_json(answer.launch);
    if (!launch)
      p.invalid +=
          "launch must be {\"grid\": [...], \"block\": [...], \"shared_bytes\": ...} with "
          "integers or expression strings; ";
    else if (*launch == launch_of(impl))
      cand.launch.reset();  // the manifest's own launch
    else
      cand.launch = *launch;
  }
  return p;
}

std::string answer_rule_failure(const AgentAnswer& answer, const ProposedCandidate& proposed,
                                const Implementation& impl, std::string* outcome) {
  if (!answer.code) {
    *outcome = "no-code";
    return "the answer had no usable kernel: give the complete source file in one fenced code "
           "block";
  }
  // Kernels the manifest does not declare are found after compiling, in the
  // module's symbol table (a `__global__` in a comment or a macro is no kernel).
  // A template-id entry ("reduce<float, BLOCK>") is defined under its plain name.
  auto entry = EntryName::parse(impl.entry);
  if (answer.code->find(entry.ok() ? entry->unqualified() : impl.entry) == std::string::npos) {
    *outcome = "invalid";
    return "the code does not define the entry function `" + impl.entry +
           "`; keep its name and signature";
  }
  if (!proposed.invalid.empty()) {
    *outcome = "invalid";
    return proposed.invalid;
  }
  return "";
}

std::string launch_rule_failure(const Candidate& candidate, const Kernel& kernel,
                                const std::string& backend, int64_t max_shared_bytes) {
  if (!candidate.launch) return "";
  std::string why = check_candidate_launch(*candidate.launch, kernel, backend, candidate.tunables,
                                           max_shared_bytes);
  return why.empty() ? "" : "the candidate's launch cannot be used: " + why;
}

std::optional<Kernel> kernel_for(const Kernel& kernel, const std::string& backend,
                                 const Candidate& candidate) {
  if (!candidate.launch) return std::nullopt;
  auto spec = parse_candidate_launch(*candidate.launch);
  if (!spec.ok()) return std::nullopt;  // checked before: launch_rule_failure
  return kernel_with_launch(kernel, backend, *spec);
}

Result<bool> reject_before_timing(const CompiledCandidate& head, const Candidate& candidate,
                                  const CompiledCandidate* trusted, MisalignedCheck& misaligned,
                                  Evaluation& e, const Kernel* head_kernel) {
  if (!head.undeclared.empty()) {
    e.invalid = true;
    e.correct = false;
    e.summary = "rejected: " + head.undeclared;
    return true;
  }
  if (!trusted) {
    // A baseline: the version every later candidate is held to.
    KGATE_RETURN_IF_ERROR(misaligned.establish(head.program));
    return false;
  }
  KGATE_RETURN_IF_ERROR(misaligned.establish(trusted->program));
  auto why = misaligned.check(head.program, candidate.tunables, head_kernel);
  if (!why.ok()) return why.error();
  if (!why->has_value()) return false;
  ShapeEvaluation s;
  s.shape = (*why)->shape;
  s.phase = "misaligned";
  s.verdict = ShapeVerdict::kWrong;
  s.reason = (*why)->reason;
  e.shapes.push_back(s);
  e.correct = false;
  e.summary = "rejected: " + (*why)->reason;
  return true;
}

}  // namespace kgate
