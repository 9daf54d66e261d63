#include "agent/candidate_compiler.h"

#include "core/log.h"
#include "runner/compile_diagnostics.h"
#include "runner/launch_plan.h"
#include "runner/module_symbols.h"

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
    c.digest = compile_error_digest(outcome->log, DigestNames{impl->source, candidate.file_name});
    if (c.digest.empty()) c.digest = "the compiler failed without a message";
  } else {
    c.ok = true;
    c.program = outcome->program;
    c.undeclared = undeclared_entries(c.program);
  }
  cache_[key] = c;
  return c;
}

Result<std::set<std::string>> CandidateCompiler::allowed_entries() {
  if (allowed_) return *allowed_;
  std::set<std::string> allowed;
  for (const Kernel& k : manifest_.kernels)
    if (const Implementation* i = k.implementation(backend_.name())) allowed.insert(i->entry);
  // The original as the repository has it: what it defines is not the
  // candidate's addition (a trampoline, a helper kernel of its own).
  const Implementation* impl = kernel_.implementation(backend_.name());
  CompileRequest request;
  request.kernel = &kernel_;
  request.impl = impl;
  request.root = manifest_.root;
  auto original = backend_.compile(request);
  if (!original.ok()) return original.error();
  if (original->ok) {
    auto symbols = read_module_symbols(original->program.artifact, backend_.name());
    if (!symbols.ok()) return symbols.error();
    for (const ModuleSymbol& s : *symbols)
      if (s.entry) allowed.insert(s.name);
  }
  allowed_ = allowed;
  return allowed;
}

std::string CandidateCompiler::undeclared_entries(const Program& program) {
  auto symbols = read_module_symbols(program.artifact, backend_.name());
  auto allowed = symbols.ok() ? allowed_entries() : Result<std::set<std::string>>(symbols.error());
  if (!allowed.ok()) {
    // Without a symbol table the rule cannot be checked; say so once.
    if (!symbols_unreadable_warned_)
      warn("cannot check candidates for undeclared kernels: " + allowed.error().message);
    symbols_unreadable_warned_ = true;
    return "";
  }
  std::string extra;
  for (const ModuleSymbol& s : *symbols) {
    // The entry as this candidate's tunables instantiate it ("f<32, 4>" for a
    // declared "f<BM, BK>") is the entry, whatever the original instantiated.
    if (!s.entry || allowed->count(s.name) || s.name == program.entry) continue;
    bool declared = false;
    for (const std::string& entry : *allowed) declared |= symbol_matches(s, entry);
    if (declared) continue;
    extra += (extra.empty() ? "`" : ", `") + s.plain + "`" +
             (s.plain != s.name ? " (" + s.name + ")" : "");
  }
  if (extra.empty()) return "";
  const bool cuda = backend_.name() == "cuda";
  return std::string("the compiled candidate defines ") +
         (cuda ? "kernels" : "exported functions") + " the manifest does not declare: " + extra +
         (cuda ? "; keep one __global__ entry (`" : "; keep one exported entry (`") +
         kernel_.implementation(backend_.name())->entry +
         (cuda ? "`), helpers as __device__ functions"
               : "`), helpers static or in an anonymous "
                 "namespace");
}

size_t shape_bytes(const Kernel& kernel, const Implementation* impl, const Shape& shape,
                   const Variables& tunables) {
  auto plan = plan_launch(kernel, impl, shape, tunables);
  return plan.ok() ? plan->traffic_bytes() : 0;
}

}  // namespace kgate
