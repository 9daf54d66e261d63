#include "gate/ab_gate.h"

#include "runner/side_compatibility.h"

#include <chrono>
#include <cmath>

#include "core/entry_name.h"
#include "core/file_util.h"
#include "core/log.h"
#include "gate/gate_sanitizer.h"
#include "gate/shape_decision.h"
#include "runner/isolated_measure.h"
#include "runner/measure_setup.h"
#include "runner/oracle_choice.h"
#include "runner/reference_cost.h"

namespace kgate {
namespace {

nlohmann::json number_or_null(double v) {
  if (std::isfinite(v)) return v;
  return nullptr;
}
double number_from(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : std::nan("");
}

nlohmann::json policy_json(const GatePolicy& p) {
  nlohmann::json timing = nlohmann::json::object();
  for (const auto& [phase, t] : p.timing_by_phase) timing[phase] = std::string(to_string(t));
  return {{"max_regression", p.max_regression},
          {"min_improvement", p.min_improvement},
          {"confidence", p.confidence},
          {"budget_s", p.budget_s},
          {"resolution", p.resolution},
          {"min_change_s", p.min_change_s},
          {"sanitize", p.sanitize},
          {"timing_by_phase", timing},
          {"launch_floor_factor", p.launch_floor_factor},
          {"launch_floor_max_bytes", p.launch_floor_max_bytes},
          {"oracle", std::string(to_string(p.oracle))},
          {"host_reference_max_elements", p.host_reference_max_elements}};
}
GatePolicy policy_from_json(const nlohmann::json& j) {
  GatePolicy p;
  p.max_regression = j.value("max_regression", p.max_regression);
  p.min_improvement = j.value("min_improvement", p.min_improvement);
  p.confidence = j.value("confidence", p.confidence);
  p.budget_s = j.value("budget_s", p.budget_s);
  p.resolution = j.value("resolution", p.resolution);
  p.min_change_s = j.value("min_change_s", p.min_change_s);
  p.sanitize = j.value("sanitize", std::vector<std::string>{});
  const nlohmann::json phases = j.value("timing_by_phase", nlohmann::json::object());
  for (const auto& [phase, t] : phases.items())
    if (auto timing = shape_timing_from_string(t.is_string() ? t.get<std::string>() : ""))
      p.timing_by_phase[phase] = *timing;
  p.launch_floor_factor = j.value("launch_floor_factor", p.launch_floor_factor);
  p.launch_floor_max_bytes = j.value("launch_floor_max_bytes", p.launch_floor_max_bytes);
  if (j.value("oracle", "") == "base") p.oracle = GatePolicy::Oracle::kBase;
  p.host_reference_max_elements =
      j.value("host_reference_max_elements", p.host_reference_max_elements);
  return p;
}

int severity(Verdict v) {
  switch (v) {
    case Verdict::kIncorrect:
      return 6;
    case Verdict::kError:
      return 5;
    case Verdict::kSlower:
      return 4;
    case Verdict::kInconclusive:
      return 3;
    case Verdict::kNew:
      return 2;
    case Verdict::kSame:
      return 1;
    case Verdict::kFaster:
      return 0;
    case Verdict::kChecked:
      return -1;  // says least: any timed verdict beside it is the kernel's
  }
  return 5;
}

// Compiles one side; an Error is infrastructure, a refusal is ok == false.
Result<CompileOutcome> compile_side(const Manifest& manifest, const Kernel& head_kernel,
                                    Backend& backend, const GateSide& side) {
  if (side.program) {
    CompileOutcome done;
    done.ok = true;
    done.program = *side.program;
    return done;
  }
  const Kernel& kernel = side.kernel ? *side.kernel : head_kernel;
  const Implementation* impl = kernel.implementation(backend.name());
  if (!impl)
    return Error::bad_input(kernel.name + " has no \"" + backend.name() + "\" implementation");
  return compile_implementation(kernel, *impl, backend,
                                side.root.empty() ? manifest.root : side.root, side.source_text,
                                side.tunables);
}

// The first line that names `entry` followed by '(' (its definition, usually).
int entry_line(const std::string& text, const std::string& entry) {
  int line = 1;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view l(text.data() + start, end - start);
    size_t at = l.find(entry);
    if (at != std::string_view::npos) {
      size_t after = l.find_first_not_of(" \t", at + entry.size());
      if (after != std::string_view::npos && l[after] == '(') return line;
    }
    ++line;
    start = end + 1;
  }
  return 1;
}

// "head drops shapes a, b of the base", "head adds shape c": a shape list
// that changes silently hides a lost check or a new, untimed one.
void note_shape_changes(const Kernel& head, const Kernel& base, const std::string& backend,
                        std::vector<std::string>& notes) {
  auto missing = [&](const Kernel& from, const Kernel& in) {
    std::vector<std::string> names;
    for (const Shape& s : from.shapes)
      if (s.runs_on(backend) && !in.shape(s.name)) names.push_back(s.name);
    return names;
  };
  auto list = [](const std::vector<std::string>& names) {
    std::string out;
    for (size_t i = 0; i < names.size(); ++i)
      out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
    return out;
  };
  auto dropped = missing(base, head), added = missing(head, base);
  if (!dropped.empty())
    notes.push_back("head drops shape" + std::string(dropped.size() == 1 ? " " : "s ") +
                    list(dropped) + " of the base: no longer checked");
  if (!added.empty())
    notes.push_back("head adds shape" + std::string(added.size() == 1 ? " " : "s ") + list(added) +
                    ": checked, not timed against the base");
}

// The verdict of one shape from its measurement. `timed_ab`: a base was
// given and timing asked for; `facts`: the shape's timing role.
ShapeGate judge_shape(const Shape& shape, const ShapeMeasurement& measured, bool timed_ab,
                      const GatePolicy& policy, ShapeTimingFacts facts) {
  ShapeGate s;
  s.shape = shape.name;
  s.phase = shape.phase;
  s.check = measured.check;
  s.base_check = measured.base_check;
  s.head_seconds = measured.head_seconds;
  s.base_seconds = measured.base_seconds;
  s.throttled_samples = measured.throttled_samples;
  std::vector<double> clocks = measured.head_clock_mhz;
  clocks.insert(clocks.end(), measured.base_clock_mhz.begin(), measured.base_clock_mhz.end());
  s.sm_clock_mhz = clocks.empty() ? 0 : quantile(clocks, 0.5);
  s.head_median_s = measured.head_median();
  s.base_median_s = measured.base_median();
  s.head_p10_s = quantile(measured.head_seconds, 0.1);
  s.head_p90_s = quantile(measured.head_seconds, 0.9);
  s.rounds = static_cast<int>(std::min(measured.head_seconds.size(), measured.base_seconds.size()));
  s.timing = facts.timing;
  s.launch_floor_s = measured.launch_floor_s;
  // What is wrong with the base is the base's, reported and never held against the head.
  const bool base_incorrect = measured.base_check && !measured.base_check->passed;
  if (!measured.base_failure.empty())
    s.base_note = measured.base_failure;
  else if (base_incorrect)
    s.base_note = "the base is itself incorrect on this shape (against the head's oracle): " +
                  measured.base_check->reason;
  if (measured.status == MeasureStatus::kFail) {
    s.verdict = Verdict::kIncorrect;
    s.fails = true;
    s.reason = measured.reason;
  } else if (measured.status == MeasureStatus::kError) {
    s.verdict = Verdict::kError;
    s.fails = true;
    s.reason = measured.reason;
  } else if (facts.timing == ShapeTiming::kOff) {
    s.verdict = Verdict::kChecked;
    s.counts = false;
    s.reason = timing_label(facts.timing, facts.timing_why);
  } else if (!timed_ab) {
    s.verdict = Verdict::kNew;
  } else if (!measured.base_not_compared.empty()) {
    s.verdict = Verdict::kNew;
    s.reason = "not timed against the base: " + measured.base_not_compared;
  } else if (!measured.base_failure.empty()) {
    s.verdict = Verdict::kNew;
    s.reason = "not timed against the base: the base fails on this shape";
  } else {
    s.interval =
        paired_ratio_interval(measured.head_seconds, measured.base_seconds, policy.confidence);
    facts.base_median_s = s.base_median_s;
    facts.head_median_s = s.head_median_s;
    facts.launch_floor_s = measured.launch_floor_s;
    facts.bytes_moved = measured.bytes_moved;
    const ShapeDecision d = decide_shape(s.interval, policy, facts);
    s.verdict = d.verdict;
    s.fails = d.fails && !base_incorrect;
    s.counts = d.counts;
    s.reason = d.note;
    if (d.fails) {
      char buf[200];
      std::snprintf(buf, sizeof buf,
                    "%.1f%% slower (%.1f%% to %.1f%%), more than the allowed %.1f%%%s",
                    (s.interval.estimate - 1) * 100, (s.interval.low - 1) * 100,
                    (s.interval.high - 1) * 100, policy.max_regression * 100,
                    base_incorrect ? ", not held against the head: the base is incorrect" : "");
      s.reason = buf;
    }
  }
  return s;
}

}  // namespace

nlohmann::json BaselineComparison::to_json() const {
  return {{"median_s", median_s},       {"p10_s", p10_s},      {"p90_s", p90_s}, {"ratio", ratio},
          {"within_band", within_band}, {"recorded", recorded}};
}

BaselineComparison BaselineComparison::from_json(const nlohmann::json& j) {
  BaselineComparison b;
  b.median_s = j.value("median_s", 0.0);
  b.p10_s = j.value("p10_s", 0.0);
  b.p90_s = j.value("p90_s", 0.0);
  b.ratio = j.value("ratio", 1.0);
  b.within_band = j.value("within_band", true);
  b.recorded = j.value("recorded", "");
  return b;
}

nlohmann::json ShapeGate::to_json() const {
  nlohmann::json j = {{"shape", shape},
                      {"phase", phase},
                      {"verdict", std::string(to_string(verdict))},
                      {"fails", fails},
                      {"accepted_regression", accepted_regression},
                      {"reason", reason},
                      {"interval", interval.to_json()},
                      {"base_median_s", number_or_null(base_median_s)},
                      {"head_median_s", number_or_null(head_median_s)},
                      {"head_p10_s", number_or_null(head_p10_s)},
                      {"head_p90_s", number_or_null(head_p90_s)},
                      {"rounds", rounds},
                      {"timing_seconds", timing_seconds},
                      {"throttled_samples", throttled_samples},
                      {"sm_clock_mhz", sm_clock_mhz},
                      {"timing", std::string(to_string(timing))},
                      {"counts", counts},
                      {"launch_floor_s", launch_floor_s},
                      {"oracle", oracle},
                      {"check", check.to_json()}};
  if (base_check) j["base_check"] = base_check->to_json();
  if (!base_note.empty()) j["base_note"] = base_note;
  if (baseline) j["baseline"] = baseline->to_json();
  return j;
}

ShapeGate ShapeGate::from_json(const nlohmann::json& j) {
  ShapeGate s;
  s.shape = j.value("shape", "");
  s.phase = j.value("phase", "");
  s.verdict = verdict_from_string(j.value("verdict", "error"));
  s.fails = j.value("fails", false);
  s.accepted_regression = j.value("accepted_regression", false);
  s.reason = j.value("reason", "");
  if (j.contains("interval")) s.interval = RatioInterval::from_json(j["interval"]);
  s.base_median_s = number_from(j, "base_median_s");
  s.head_median_s = number_from(j, "head_median_s");
  s.head_p10_s = number_from(j, "head_p10_s");
  s.head_p90_s = number_from(j, "head_p90_s");
  s.rounds = j.value("rounds", 0);
  s.timing_seconds = j.value("timing_seconds", 0.0);
  s.throttled_samples = j.value("throttled_samples", 0);
  s.sm_clock_mhz = j.value("sm_clock_mhz", 0.0);
  s.timing = shape_timing_from_string(j.value("timing", "gate")).value_or(ShapeTiming::kGate);
  s.counts = j.value("counts", true);
  s.launch_floor_s = j.value("launch_floor_s", 0.0);
  s.oracle = j.value("oracle", "");
  if (j.contains("check")) s.check = CheckReport::from_json(j["check"]);
  if (j.contains("base_check")) s.base_check = CheckReport::from_json(j["base_check"]);
  s.base_note = j.value("base_note", "");
  if (j.contains("baseline")) s.baseline = BaselineComparison::from_json(j["baseline"]);
  return s;
}

bool KernelGate::passed() const {
  if (!head_compiled) return false;
  for (const ShapeGate& s : shapes)
    if (s.fails) return false;
  return true;
}

Verdict KernelGate::overall() const {
  if (!head_compiled) return Verdict::kIncorrect;
  Verdict worst = Verdict::kFaster;
  bool any = false;
  for (const ShapeGate& s : shapes) {
    if (!any || severity(s.verdict) > severity(worst)) worst = s.verdict;
    any = true;
  }
  return any ? worst : Verdict::kSame;
}

nlohmann::json KernelGate::to_json() const {
  nlohmann::json j = {{"kernel", kernel},
                      {"backend", backend},
                      {"source", source},
                      {"source_line", source_line},
                      {"why", why},
                      {"policy", policy_json(policy)},
                      {"head_compiled", head_compiled},
                      {"base_compiled", base_compiled},
                      {"head_compile_error", head_compile_error},
                      {"base_compile_error", base_compile_error},
                      {"notes", notes},
                      {"passed", passed()},
                      {"verdict", std::string(to_string(overall()))},
                      {"device", device.to_json()},
                      {"seed", seed},
                      {"shapes", nlohmann::json::array()}};
  for (const ShapeGate& s : shapes) j["shapes"].push_back(s.to_json());
  return j;
}

KernelGate KernelGate::from_json(const nlohmann::json& j) {
  KernelGate k;
  k.kernel = j.value("kernel", "");
  k.backend = j.value("backend", "");
  k.source = j.value("source", "");
  k.source_line = j.value("source_line", 1);
  k.why = j.value("why", "");
  if (j.contains("policy")) k.policy = policy_from_json(j["policy"]);
  k.head_compiled = j.value("head_compiled", false);
  k.base_compiled = j.value("base_compiled", false);
  k.head_compile_error = j.value("head_compile_error", "");
  k.base_compile_error = j.value("base_compile_error", "");
  k.notes = j.value("notes", std::vector<std::string>{});
  if (j.contains("device")) k.device = DeviceInfo::from_json(j["device"]);
  k.seed = j.value("seed", uint64_t{0});
  for (const auto& s : j.value("shapes", nlohmann::json::array()))
    k.shapes.push_back(ShapeGate::from_json(s));
  return k;
}

Result<KernelGate> gate_kernel(const Manifest& manifest, const Kernel& kernel, Backend& backend,
                               const GateSources& sources, const GateOptions& options) {
  KernelGate gate;
  gate.kernel = kernel.name;
  gate.backend = backend.name();
  gate.policy = with_timer_floor(options.policy.value_or(manifest.gate), backend.timer_floor_s());
  if (options.sanitize) gate.policy.sanitize = *options.sanitize;
  const Implementation* impl = kernel.implementation(backend.name());
  if (!impl)
    return Error::bad_input(kernel.name + " has no \"" + backend.name() + "\" implementation in " +
                            manifest.path.string());
  gate.source = impl->source;
  std::string head_text;
  if (sources.head.source_text) {
    head_text = *sources.head.source_text;
  } else if (auto text = read_file((sources.head.root.empty() ? manifest.root : sources.head.root) /
                                   impl->source);
             text.ok()) {
    head_text = *text;
  }
  auto entry = EntryName::parse(impl->entry);
  gate.source_line = entry_line(head_text, entry.ok() ? entry->unqualified() : impl->entry);
  if (!options.shape.empty() && !kernel.shape(options.shape))
    return Error::bad_input(kernel.name + " has no shape '" + options.shape + "'");

  progress("compiling head of " + kernel.name + " (" + backend.name() + ")");
  auto head = compile_side(manifest, kernel, backend, sources.head);
  if (!head.ok()) return head.error();
  if (!head->ok) {
    gate.head_compile_error = head->digest();
    return gate;
  }
  gate.head_compiled = true;
  std::optional<CompileOutcome> base;
  if (sources.base) {
    progress("compiling base of " + kernel.name);
    auto compiled = compile_side(manifest, kernel, backend, *sources.base);
    if (!compiled.ok()) return compiled.error();
    if (compiled->ok) {
      gate.base_compiled = true;
      base = std::move(compiled.value());
    } else {
      // A base that does not build leaves nothing to compare with: the head
      // is still checked for correctness.
      gate.base_compile_error = compiled->digest();
      warn("base of " + kernel.name + " does not compile; checking head for correctness only");
    }
  }

  auto references = build_references(kernel, manifest.root, backend);
  if (!references.ok()) return references.error();
  OracleState oracles = references->oracles();
  oracles.base_available = base.has_value();
  // What the host reference will cost, said before it is paid.
  warn_slow_references(kernel, references->host,
                       host_judged_shapes(kernel, gate.policy, backend.name(),
                                          oracles.device_reference, options.shape),
                       kernel.timing.time_limit_s);

  gate.seed = seed_or_clock(options.seed);
  const Kernel* base_kernel = sources.base ? sources.base->kernel : nullptr;
  if (base && base_kernel && options.shape.empty())
    note_shape_changes(kernel, *base_kernel, backend.name(), gate.notes);
  if (base && base_kernel)
    if (std::string changed = signature_change(kernel, *base_kernel); !changed.empty())
      gate.notes.push_back("the kernel's parameters changed: " + changed +
                           "; each side is launched with its own, on the same buffers");
  for (const std::string& note : head->program.notes) gate.notes.push_back("head: " + note);
  GateSanitizer sanitizer(gate.policy.sanitize, backend.name(), options.kgate_executable);
  // Shapes the host reference judges first, so the base's checks come before it judges.
  std::vector<std::optional<ShapeGate>> gated(kernel.shapes.size());
  for (size_t i : gating_order(kernel, gate.policy)) {
    const Shape& shape = kernel.shapes[i];
    if (!options.shape.empty() && shape.name != options.shape) continue;
    if (!shape.runs_on(backend.name())) continue;
    progress("gating " + kernel.name + " / " + shape.name);
    ShapeTimingFacts facts = timing_facts(shape, gate.policy);
    std::string oracle_note;
    const OracleKind oracle = choose_oracle(kernel, shape, gate.policy, oracles, &oracle_note);
    MeasureRequest m = shape_request(kernel, *impl, i, backend, options.gpu, head->program,
                                     *references, gate.seed);
    m.base = base ? &base->program : nullptr;
    if (base && base_kernel) {
      // The base as its revision declares it: its args, launch and shape.
      m.base_kernel = base_kernel;
      m.base_impl = base_kernel->implementation(backend.name());
      m.base_shape = base_kernel->shape(shape.name);
    }
    m.reference_cache = options.reference_cache;
    m.reference_store = options.reference_store;
    m.oracle = oracle;
    m.time = options.time && facts.timing != ShapeTiming::kOff;
    m.min_samples = options.min_samples;
    m.max_samples = std::max(options.max_samples, options.min_samples);
    m.budget_s = gate.policy.budget_s;
    m.enough = adaptive_stop(gate.policy);
    m.time_limit_s = kernel.timing.time_limit_s + gate.policy.budget_s;
    auto started = std::chrono::steady_clock::now();
    ShapeMeasurement measured = measure_shape(m);
    ShapeGate s =
        judge_shape(shape, measured, base.has_value() && options.time, gate.policy, facts);
    if (measured.status == MeasureStatus::kPass && sanitizer.active()) {
      SanitizeTarget target;
      target.manifest_root = sources.head.root.empty() ? manifest.root : sources.head.root;
      target.kernel = &kernel;
      target.backend = backend.name();
      target.shape = shape.name;
      target.head = head->program;
      target.reference = references->host;
      target.seed = m.seed;
      target.gpu = options.gpu;
      target.time_limit_s = kernel.timing.time_limit_s;
      sanitizer.check(target, s, gate.notes);
    }
    s.timing_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    s.oracle = measured.oracle + (oracle_note.empty() ? "" : " (" + oracle_note + ")");
    if (s.base_check)
      ++(s.base_check->passed ? oracles.base_checks_passed : oracles.base_checks_failed);
    if (gate.device.name.empty()) gate.device = measured.device;
    gated[i] = std::move(s);
  }
  for (auto& s : gated)
    if (s) gate.shapes.push_back(std::move(*s));
  return gate;
}

}  // namespace kgate
