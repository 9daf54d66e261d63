#include "agent/agent_context.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "agent/acceptance_rule.h"
#include "agent/persisted_json.h"
#include "core/number_format.h"

namespace kgate {
namespace {

std::string settings_text(const nlohmann::json& candidate) {
  std::string s;
  const nlohmann::json tunables = object_field(candidate, "tunables");  // outlives the loop
  for (const auto& [k, v] : tunables.items()) s += (s.empty() ? "" : " ") + k + "=" + v.dump();
  for (const auto& f : array_field(candidate, "flags"))
    if (f.is_string()) s += (s.empty() ? "" : " ") + f.get<std::string>();
  if (auto l = CandidateLaunch::from_json(object_field(candidate, "launch")))
    s += (s.empty() ? "" : " ") + ("launch " + l->text());
  return s.empty() ? "defaults" : s;
}

std::string result_line(const IterationRecord& it) {
  std::string line = "iteration " + std::to_string(it.index) + ": " + it.outcome;
  if (it.evaluation && it.evaluation->compiled && it.evaluation->correct)
    line += " (speedup " + format_number(1 / it.evaluation->geomean_ratio) + "x)";
  std::string change = string_field(it.plan, "change");
  line += " — settings " + settings_text(it.candidate);
  if (!change.empty()) line += "; change: " + first_sentences(change, 1);
  return line;
}

// The distinct compile digests of a prompt, newest first, each shown once
// under "## Compiler errors" and referred to by number elsewhere.
class DigestIndex {
 public:
  // `its` in iteration order; the newest digest gets number 1.
  explicit DigestIndex(const std::vector<IterationRecord>* its) {
    if (!its) return;
    for (auto it = its->rbegin(); it != its->rend(); ++it) {
      if (it->compile_digest.empty()) continue;
      auto found = std::find_if(digests_.begin(), digests_.end(),
                                [&](const Entry& e) { return e.text == it->compile_digest; });
      if (found == digests_.end()) {
        digests_.push_back({it->compile_digest, {}});
        found = digests_.end() - 1;
      }
      found->iterations.push_back(it->index);
    }
  }
  // 1-based, 0 when the digest is not listed.
  size_t number(const std::string& digest) const {
    for (size_t i = 0; i < digests_.size(); ++i)
      if (digests_[i].text == digest) return i + 1;
    return 0;
  }
  std::string reference(const std::string& digest) const {
    size_t n = number(digest);
    return n ? "compiler digest " + std::to_string(n) + " under \"Compiler errors\"" : "";
  }
  // The section, newest first; the oldest digests are left out when it is full.
  std::string section(size_t max_chars) const {
    std::string s;
    size_t left_out = 0;
    for (size_t i = 0; i < digests_.size(); ++i) {
      std::string its;
      for (int n : digests_[i].iterations) its += (its.empty() ? "" : ", ") + std::to_string(n);
      std::string block = "### Compiler digest " + std::to_string(i + 1) + " (iteration" +
                          (digests_[i].iterations.size() > 1 ? "s " : " ") + its + ")\n" +
                          bounded(digests_[i].text, 4000);
      if (!block.empty() && block.back() != '\n') block += "\n";
      if (!s.empty() && s.size() + block.size() > max_chars) {
        left_out = digests_.size() - i;
        break;
      }
      s += block;
    }
    if (left_out) s += "[" + std::to_string(left_out) + " older digests left out]\n";
    return s;
  }

 private:
  struct Entry {
    std::string text;
    std::vector<int> iterations;  // newest first
  };
  std::vector<Entry> digests_;
};

// What the agent was told about a failed iteration, with its compile digest
// (which records before digests were listed once carried inline) replaced
// by a reference to the digest's entry.
std::string failure_text(const IterationRecord& it, const DigestIndex* digests) {
  std::string failure = it.failure;
  if (!digests || it.compile_digest.empty()) return failure;
  const std::string ref = digests->reference(it.compile_digest);
  if (ref.empty()) return failure;
  if (size_t p = failure.find(it.compile_digest); p != std::string::npos)
    failure.replace(p, it.compile_digest.size(), "(" + ref + ")");
  else
    failure += " (" + ref + ")";
  while (!failure.empty() && (failure.back() == '\n' || failure.back() == ':')) failure.pop_back();
  return failure;
}

// One result in detail; with `digests`, its compile digest is referred to,
// not repeated.
std::string recent_block(const IterationRecord& it, const GatePolicy& policy,
                         const DigestIndex* digests = nullptr) {
  std::string s = result_line(it) + "\n";
  if (it.evaluation && it.evaluation->compiled && it.evaluation->correct && !it.accepted &&
      !it.evaluation->invalid && !it.evaluation->shapes.empty())
    s += "  not kept: " + why_not_kept(*it.evaluation, policy) + "\n";
  std::string bottleneck = string_field(it.plan, "bottleneck");
  if (!bottleneck.empty()) s += "  bottleneck claimed: " + bottleneck + "\n";
  if (!it.failure.empty()) s += "  failure: " + failure_text(it, digests) + "\n";
  if (!it.compile_digest.empty() && !digests) s += "  compiler:\n" + it.compile_digest + "\n";
  if (it.evaluation && it.evaluation->compiled) {
    for (const ShapeEvaluation& sh : it.evaluation->shapes) {
      s += "  " + sh.shape + ": " + std::string(to_string(sh.verdict));
      if (sh.verdict == ShapeVerdict::kWrong || sh.verdict == ShapeVerdict::kError)
        s += " — " + sh.reason;
      else
        s += " ratio " + format_number(sh.ratio) + " [" + format_number(sh.ratio_lo) + ", " +
             format_number(sh.ratio_hi) + "] (" + format_seconds(sh.best_s) + " -> " +
             format_seconds(sh.candidate_s) + ")" + (sh.counts ? "" : ", report only");
      s += "\n";
    }
  }
  if (!it.reflection.empty()) s += "  reflection: " + it.reflection + "\n";
  return s;
}

nlohmann::json tunables_json(const Variables& v) {
  nlohmann::json t = nlohmann::json::object();
  for (const auto& [k, x] : v) t[k] = x;
  return t;
}

// Every argument's element count (buffers) or value (integer scalars), as written.
nlohmann::json arg_expressions(const Kernel& k) {
  nlohmann::json out = nlohmann::json::array();
  for (const Arg* a : k.leaves()) {
    if (a->is_buffer)
      out.push_back(a->count.text());
    else if (!dtype_is_float(a->dtype))
      out.push_back(a->int_value.text());
  }
  return out;
}

std::string source_language(const Implementation& impl) {
  return impl.backend == "cuda" ? "cuda" : "cpp";
}

}  // namespace

std::string bounded(const std::string& text, size_t max_chars) {
  if (text.size() <= max_chars) return text;
  const std::string note = "\n[... cut to " + std::to_string(max_chars) + " characters]\n";
  if (max_chars <= note.size()) return text.substr(0, max_chars);
  return text.substr(0, max_chars - note.size()) + note;
}

double launch_floor_s(const std::string& backend) {
  return backend == "cuda" ? 8e-6 : 2e-6;
}

std::string classify_bottleneck(const std::vector<ShapeEvaluation>& timing,
                                const ResourceReport& resources, const std::string& backend) {
  if (resources.spill_store_bytes > 0 || resources.spill_load_bytes > 0 ||
      resources.registers > 128)
    return "register-limited";
  std::vector<double> times;
  for (const ShapeEvaluation& s : timing)
    if (s.best_s > 0) times.push_back(s.best_s);
  if (times.empty()) return "unknown";
  std::sort(times.begin(), times.end());
  // Most shapes finishing within a few launch latencies: launch overhead dominates.
  if (times[times.size() / 2] < launch_floor_s(backend)) return "launch-bound";
  return "unknown";
}

std::string timing_profile_summary(const std::vector<ShapeEvaluation>& timing,
                                   const ResourceReport& resources, const std::string& backend) {
  std::string s = "No profiler ran; from timing and the compiler's resource report.\n";
  for (const ShapeEvaluation& sh : timing) {
    if (sh.best_s <= 0) continue;
    double gbps = sh.bytes_moved / sh.best_s / 1e9;
    s += "- " + sh.shape + " (" + sh.phase + "): " + format_seconds(sh.best_s) + ", " +
         std::to_string(sh.bytes_moved) + " bytes moved, " + format_number(gbps) +
         " GB/s achieved\n";
  }
  std::string res;
  if (resources.registers >= 0)
    res += " registers/thread " + std::to_string(resources.registers) + ";";
  if (resources.spill_store_bytes >= 0)
    res += " spills " + std::to_string(resources.spill_store_bytes) + " B stored, " +
           std::to_string(std::max(0, resources.spill_load_bytes)) + " B loaded;";
  if (resources.shared_bytes >= 0)
    res += " static shared " + std::to_string(resources.shared_bytes) + " B;";
  if (resources.stack_bytes >= 0) res += " stack " + std::to_string(resources.stack_bytes) + " B;";
  s += "Compiler resources:" +
       (res.empty() ? std::string(" not reported by the " + backend + " backend.") : res) + "\n";
  const std::string c = classify_bottleneck(timing, resources, backend);
  s += "Bottleneck class (from timing only): " + c + ".";
  if (c == "unknown")
    s += " Timing and bandwidth alone cannot tell whether memory, arithmetic (conversions "
         "included) or latency bounds it; no hardware counters were read" +
         std::string(backend == "cuda" ? " (`kgate profile` reads them)." : " on this backend.");
  return s + "\n";
}

// "out: half* output of rows * cols elements; x: const half* input (rows *
// cols); n: int32 = rows * cols": what each parameter is, so a model need
// not infer it from the signature. A struct lists its fields in braces.
std::string parameters_text(const std::vector<Arg>& args) {
  std::string out;
  for (const Arg& a : args) {
    if (a.reference_only) continue;
    if (!out.empty()) out += "; ";
    if (a.is_struct) {
      out += a.name + ": a struct by value {" + parameters_text(a.fields) + "}";
      continue;
    }
    const std::string type = std::string(dtype_name(a.dtype)) + (a.is_buffer ? "*" : "");
    if (!a.is_buffer) {
      out += a.name + ": " + type + " = " +
             (dtype_is_float(a.dtype)
                  ? (a.float_variable.empty() ? format_number(a.float_value) : a.float_variable)
                  : a.int_value.text());
      continue;
    }
    const char* role = a.role == ArgRole::kOutput    ? "output"
                       : a.role == ArgRole::kInOut   ? "in/out"
                       : a.role == ArgRole::kScratch ? "scratch"
                                                     : "input";
    out += a.name + ": " + type + " " + role + " of " + a.count.text() + " elements";
    if (a.null_when) out += " (NULL where " + a.null_when->text() + ")";
    if (a.init.distribution == InitSpec::Distribution::kValues) out += ", given contents";
    if (a.init.distribution == InitSpec::Distribution::kFormula)
      out += ", element i = " + a.init.formula.text();
  }
  return out;
}

std::string standing_instruction() {
  return "You optimize one kernel. It is gated by kgate: every candidate is compiled, checked for "
         "correctness on every declared shape against a reference, and timed A/B against the "
         "current best; only a measured improvement beyond noise is kept, whatever you claim.\n"
         "Answer with:\n"
         "BOTTLENECK: the bottleneck, in at most three sentences.\n"
         "CHANGE: what you change and why.\n"
         "EXPECTED GAIN: the speedup you expect.\n"
         "RISKS: what could go wrong.\n"
         "Then the complete kernel source file in one fenced code block (not a diff), and "
         "optionally a ```json block {\"tunables\": {...}, \"flags\": [...], \"launch\": "
         "{\"grid\": [...], \"block\": [...], \"shared_bytes\": ...}} to set the manifest's "
         "tunables, add compiler flags, or (GPU kernels only) launch the kernel differently.\n"
         "A launch is needed only when your code expects another grid, block or dynamic shared "
         "memory than the current one (one warp per row instead of one thread per row, a "
         "cluster per row): give grid and block (1 to 3 dimensions each) and shared_bytes, each "
         "an integer or an expression over the shape's variables and the tunables with C's "
         "integer operators (+ - * / % << >> & | ^, comparisons, cond ? a : b) and ceil_div(a, "
         "b), round_up(a, b), min(), max(), ceil_log2(a), e.g. \"ceil_div(rows, 8)\" or \"cols "
         "< 1024 ? 32 : 1024\"; at most 1024 threads per block. Leave it out to keep the "
         "current launch. A changed launch is written into kgate.json, and code that launches "
         "the kernel itself must change too.\n"
         "Rules: do not change the kernel's input/output semantics (arguments, layout, results "
         "within the tolerance); keep the entry function's name and signature; do not add "
         "kernels (or, on the CPU, exported functions) the manifest does not declare: make "
         "helpers __device__ functions, or static; every candidate is also checked on small "
         "misaligned sizes; flags that change numerics (fast math, flush-to-zero) are refused "
         "unless the manifest allows them.\n"
         "When you see nothing left worth trying, answer only `STOP: reason`: the episode ends "
         "with the best so far.";
}

namespace {

const GatePolicy& policy_of(const ContextInput& in) {
  static const GatePolicy defaults;
  return in.manifest ? in.manifest->gate : defaults;
}

}  // namespace

AgentRequest build_propose_request(const ContextInput& in) {
  const ContextLimits& lim = in.limits;
  const Kernel& k = *in.kernel;
  const Implementation& impl = *in.impl;
  std::string backend = impl.backend;

  std::string header = "Kernel `" + k.name + "` (family " + k.family + ", backend " + backend +
                       "), entry `" + impl.entry + "`, file " + impl.source + ". Iteration " +
                       std::to_string(in.iteration) + " of " + std::to_string(in.max_iterations) +
                       ".\n";
  header += "Tolerance: atol " + format_number(k.tolerance.atol) + ", rtol " +
            format_number(k.tolerance.rtol) + ".\n" +
            acceptance_rule(policy_of(in), in.best_timing) + "\n";
  if (!impl.tunables.empty()) {
    header += "Tunables (-D values):";
    for (const Tunable& t : impl.tunables) {
      header += " " + t.name + " in {";
      for (size_t i = 0; i < t.values.size(); ++i)
        header += (i ? "," : "") + std::to_string(t.values[i]);
      header += "}";
      if (!t.role.empty()) header += " (" + t.role + ")";
    }
    header += "\n";
    if (!impl.constraints.empty()) {
      header += "Every setting must meet:";
      for (const TunableConstraint& c : impl.constraints) header += " " + c.expression.text() + ";";
      header += "\n";
    }
  }
  if (backend == "cuda") {
    header += "Launch of the current best: " +
              (in.best.launch ? in.best.launch->text() + " (its own; the manifest's is " +
                                    launch_of(impl).text() + ")"
                              : launch_of(impl).text() + " (the manifest's)") +
              ".\n";
  }
  header += "Parameters, in order: " + parameters_text(k.args) + ".\n";
  header += "Shapes:";
  for (const Shape& s : k.shapes) {
    if (!s.runs_on(backend)) continue;
    header += " " + s.name + "(";
    bool first = true;
    for (const auto& [n, v] : s.variables) {
      header += (first ? "" : ",") + n + "=" + std::to_string(v);
      first = false;
    }
    for (const auto& [n, v] : s.float_variables) {
      header += (first ? "" : ",") + n + "=" + nlohmann::json(v).dump();
      first = false;
    }
    header += ")";
  }
  header += "\n";

  std::string source = bounded(in.best_source, lim.source_chars);
  std::string settings = "Current best: iteration " + std::to_string(in.best_iteration) +
                         (in.best_iteration == 0 ? " (the original)" : "") + ", settings " +
                         settings_text(in.best.to_json()) + ".\n";

  std::string profile =
      bounded(in.profile_summary.empty()
                  ? profile_section(in.profile, in.best_timing, in.best_resources, backend)
                  : in.profile_summary,
              lim.profile_chars);
  const std::string bottleneck =
      !in.bottleneck.empty() ? in.bottleneck
                             : classify_bottleneck(in.best_timing, in.best_resources, backend);

  // Last results newest first: when the section is full, the oldest of
  // them fold into the one-line list instead of the newest being cut.
  const DigestIndex digests(in.iterations);
  std::string recent, tried;
  nlohmann::json recent_json = nlohmann::json::array(), tried_json = nlohmann::json::array();
  if (in.iterations) {
    const auto& its = *in.iterations;
    size_t split =
        its.size() > static_cast<size_t>(lim.recent_results) ? its.size() - lim.recent_results : 0;
    std::vector<std::string> older;  // one line each, oldest first
    for (size_t i = 0; i < its.size(); ++i) {
      const IterationRecord& it = its[i];
      double speedup =
          it.evaluation && it.evaluation->correct ? 1 / it.evaluation->geomean_ratio : 0;
      tried_json.push_back({{"iteration", it.index},
                            {"tunables", object_field(it.candidate, "tunables")},
                            {"flags", array_field(it.candidate, "flags")},
                            {"launch", object_field(it.candidate, "launch")},
                            {"source_sha256", string_field(it.candidate, "source_sha256")},
                            {"outcome", it.outcome},
                            {"speedup", finite_or_null(speedup)},
                            {"accepted", it.accepted}});
      if (i < split) older.push_back("- " + result_line(it) + "\n");
    }
    std::vector<std::string> folded;  // recent ones that did not fit, newest first
    for (size_t i = its.size(); i-- > split;) {
      const IterationRecord& it = its[i];
      std::string block = recent_block(it, policy_of(in), &digests);
      if (!recent.empty() && recent.size() + block.size() > lim.recent_chars) {
        folded.push_back("- " + result_line(it) + "\n");
        continue;
      }
      recent += recent.empty() ? bounded(block, lim.recent_chars) : block;
      recent_json.push_back({{"iteration", it.index},
                             {"outcome", it.outcome},
                             {"failure", it.failure},
                             {"compile_digest", it.compile_digest},
                             {"summary", it.evaluation ? it.evaluation->summary : ""},
                             {"reflection", it.reflection}});
    }
    // The one-line list newest first too, so its cap drops the oldest.
    for (const std::string& line : folded) tried += line;
    for (auto it = older.rbegin(); it != older.rend(); ++it) {
      if (tried.size() + it->size() > lim.tried_chars) {
        tried += "[" + std::to_string(older.rend() - it) + " older iterations left out]\n";
        break;
      }
      tried += *it;
    }
  }
  std::string compile_errors = digests.section(lim.digests_chars);

  std::string lessons;
  nlohmann::json lessons_json = nlohmann::json::array();
  for (const Lesson& l : in.lessons) {
    lessons += "- [" + l.kernel + ", " + l.bottleneck + "] " + l.change + " -> " + l.outcome;
    if (l.speedup > 0) lessons += " (" + format_number(l.speedup) + "x)";
    if (!l.reflection.empty()) lessons += ": " + first_sentences(l.reflection, 2);
    lessons += "\n";
    lessons_json.push_back(l.to_json());
  }
  lessons = bounded(lessons, lim.lessons_chars);

  std::string prompt = header + "\n" + settings + "\n## Current best source\n```" +
                       source_language(impl) + "\n" + source +
                       (source.empty() || source.back() == '\n' ? "" : "\n") +
                       "```\n\n## Profile\n" + profile;
  if (!in.workload_focus.empty())
    prompt += "\n## In the deployed workload\n" + bounded(in.workload_focus, 1500);
  if (!recent.empty()) prompt += "\n## Last results (newest first)\n" + recent;
  if (!tried.empty()) prompt += "\n## Approaches already tried (older, newest first)\n" + tried;
  if (!compile_errors.empty())
    prompt += "\n## Compiler errors (each once, newest first)\n" + compile_errors;
  if (!lessons.empty())
    prompt += "\n## Lessons from kernels of the family " + k.family + "\n" + lessons;
  if (!in.feedback.empty()) {
    std::string feedback = in.feedback;
    if (in.iterations && !in.iterations->empty() && !in.iterations->back().compile_digest.empty()) {
      // The digest is listed above: the feedback names it instead.
      const IterationRecord& last = in.iterations->back();
      if (size_t p = feedback.find(last.failure); p != std::string::npos && !last.failure.empty())
        feedback.replace(p, last.failure.size(), failure_text(last, &digests));
    }
    prompt += "\n## The previous iteration failed\n" + feedback + "\n";
  }
  if (!in.replan.empty()) prompt += "\n## Your re-plan (follow it now)\n" + in.replan + "\n";
  if (in.reflect_on > 0)
    prompt +=
        "\n## Reflect first\nStart your answer with one line `REFLECTION: ...`: in at most "
        "three sentences, why iteration " +
        std::to_string(in.reflect_on) +
        " came out as it did (its result is above) and what that says about this kernel. "
        "Then answer as asked.\n";
  prompt += "\nPropose the next candidate.\n";

  AgentRequest r;
  r.task = AgentTask::kPropose;
  r.system = standing_instruction();
  r.prompt = prompt;
  r.structured_answer = true;
  nlohmann::json declared = nlohmann::json::object();
  nlohmann::json roles = nlohmann::json::object();
  nlohmann::json constraints = nlohmann::json::array();
  for (const Tunable& t : impl.tunables) {
    declared[t.name] = t.values;
    if (!t.role.empty()) roles[t.name] = t.role;
  }
  for (const TunableConstraint& c : impl.constraints) constraints.push_back(c.expression.text());
  // Per shape: the best's median and bytes moved, so an agent can compute bandwidth.
  nlohmann::json best_timing_json = nlohmann::json::array();
  for (const ShapeEvaluation& s : in.best_timing) best_timing_json.push_back(s.to_json());
  r.context = {{"kernel", k.name},
               {"family", k.family},
               {"backend", backend},
               {"entry", impl.entry},
               {"source_file", impl.source},
               {"allow_fast_math", impl.compile.allow_fast_math},
               {"tunables", declared},
               {"tunable_roles", roles},
               {"constraints", constraints},
               {"iteration", in.iteration},
               {"max_iterations", in.max_iterations},
               {"seed", in.seed},
               {"best",
                {{"iteration", in.best_iteration},
                 {"tunables", tunables_json(in.best.tunables)},
                 {"flags", in.best.flags},
                 {"launch", in.best.launch ? in.best.launch->to_json() : nlohmann::json()},
                 {"source", in.best_source}}},
               // The manifest's launch (cuda), which a candidate's own launch replaces,
               // and what the arguments' sizes depend on (a block size they use is fixed).
               {"launch", backend == "cuda" ? launch_of(impl).to_json() : nlohmann::json()},
               {"arg_expressions", arg_expressions(k)},
               {"profile",
                {{"summary", profile},
                 {"bottleneck", bottleneck},
                 {"resources", in.best_resources.to_json()},
                 {"timing", best_timing_json},
                 // The counters behind the summary (summary_json), where a profile ran.
                 {"shape", in.profile ? in.profile->shape : ""},
                 {"data", in.profile && in.profile->ok() ? in.profile->data : nlohmann::json()},
                 {"error", in.profile ? in.profile->error : ""}}},
               {"recent", recent_json},
               {"tried", tried_json},
               {"lessons", lessons_json},
               {"feedback", in.feedback},
               {"replan", in.replan},
               {"workload", in.workload_focus}};
  r.context["sizes"] = {{"instruction", r.system.size()},
                        {"header", header.size() + settings.size()},
                        {"source", source.size()},
                        {"profile", profile.size()},
                        {"recent", recent.size()},
                        {"tried", tried.size()},
                        {"compile_errors", compile_errors.size()},
                        {"lessons", lessons.size()},
                        {"total", r.system.size() + prompt.size()}};
  return r;
}

AgentRequest build_replan_request(const ContextInput& in, const std::vector<std::string>& digests) {
  AgentRequest r = build_propose_request(in);
  r.task = AgentTask::kReplan;
  r.structured_answer = false;
  std::string s =
      "Your last " + std::to_string(digests.size()) +
      " candidates did not compile (their compiler errors are listed once above, under "
      "\"Compiler errors\"). Before writing any more code, re-plan: state the bottleneck "
      "(at most three sentences), a different change that you can write correctly, and what "
      "went wrong. Answer with the plan only, no code.\n";
  // A digest the prompt does not show already (none, when the iterations
  // are the episode's) is added here, once.
  std::vector<std::string> shown;
  for (const std::string& d : digests)
    if (!d.empty() && r.prompt.find(d) == std::string::npos &&
        std::find(shown.begin(), shown.end(), d) == shown.end()) {
      shown.push_back(d);
      s += "\nCompile failure:\n" + bounded(d, 4000) + "\n";
    }
  r.prompt += "\n## Re-plan required\n" + s;
  r.context["compile_failures"] = digests;
  return r;
}

AgentRequest build_reflect_request(const ContextInput& in, const IterationRecord& it) {
  AgentRequest r;
  r.task = AgentTask::kReflect;
  r.system =
      "You reflect on one result of a kernel optimization episode. In at most three sentences, "
      "explain "
      "why the result came out as it did (name the bottleneck it shows) and what to try or avoid "
      "next.";
  r.prompt = "Kernel `" + in.kernel->name + "` (family " + in.kernel->family + ").\n## Result\n" +
             recent_block(it, policy_of(in)) +
             "\nYour plan was: " + nlohmann::json(it.plan).dump() + "\n";
  r.context = {{"kernel", in.kernel->name},
               {"family", in.kernel->family},
               {"backend", in.impl->backend},
               {"iteration", it.index},
               {"outcome", it.outcome},
               {"plan", it.plan},
               {"candidate", it.candidate},
               {"failure", it.failure},
               {"gate", it.evaluation ? it.evaluation->to_json() : nlohmann::json()},
               {"best_timing", nlohmann::json::array()}};
  for (const ShapeEvaluation& s : in.best_timing) r.context["best_timing"].push_back(s.to_json());
  r.context["bottleneck"] =
      !in.bottleneck.empty()
          ? in.bottleneck
          : classify_bottleneck(in.best_timing, in.best_resources, in.impl->backend);
  return r;
}

}  // namespace kgate
