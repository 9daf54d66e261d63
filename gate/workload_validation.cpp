#include "gate/workload_validation.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/file_util.h"
#include "core/log.h"
#include "core/subprocess.h"
#include "runner/sanitizer_program.h"

namespace kgate {
namespace {

using json = nlohmann::json;

double median_or_zero(std::vector<double> v) {
  double q = quantile(std::move(v), 0.5);
  return std::isnan(q) ? 0 : q;
}

std::string pct_change(double ratio) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(1);
  s << (ratio >= 1 ? "+" : "") << (ratio - 1) * 100 << "%";
  return s.str();
}

std::string tail(const std::string& text, size_t n) {
  return text.size() > n ? "..." + text.substr(text.size() - n) : text;
}

struct RunResult {
  bool ok = false;
  std::string failure;  // why not
  json output;
};

RunResult run_once(const WorkloadSpec& spec, const std::filesystem::path& root,
                   const std::string& command, const std::vector<std::string>& prefix = {}) {
  RunResult r;
  auto output = std::filesystem::absolute(root / spec.output);
  std::error_code ec;
  std::filesystem::create_directories(output.parent_path(), ec);
  std::filesystem::remove(output, ec);
  std::vector<std::string> argv = prefix;
  for (const char* a : {"sh", "-c"}) argv.push_back(a);
  argv.push_back(expand_output(command, output.string()));
  CommandOptions options;
  options.cwd = root.string();
  options.timeout_s = spec.timeout_s;
  auto outcome = run_command(argv, options);
  if (!outcome.ok()) {
    r.failure = outcome.error().message;
    return r;
  }
  if (!outcome->succeeded()) {
    r.failure = outcome->describe(spec.timeout_s) + ": " + tail(outcome->err + outcome->out, 1500);
    return r;
  }
  auto text = read_file(output);
  if (!text.ok()) {
    r.failure = "it wrote no output file " + spec.output;
    return r;
  }
  r.output = json::parse(*text, nullptr, false);
  if (r.output.is_discarded()) {
    r.failure = spec.output + " is not valid JSON";
    return r;
  }
  r.ok = true;
  return r;
}

Status build_tree(const WorkloadSpec& spec, const std::filesystem::path& root,
                  const std::string& which) {
  if (spec.build.empty()) return {};
  progress("workload: building the " + which + " (" + spec.build + ")");
  CommandOptions options;
  options.cwd = root.string();
  options.timeout_s = spec.timeout_s;
  auto outcome = run_command({"sh", "-c", spec.build}, options);
  if (!outcome.ok()) return outcome.error();
  if (!outcome->succeeded())
    return Error::check_failed("building the " + which + " workload failed (" +
                               outcome->describe(spec.timeout_s) +
                               "): " + tail(outcome->err + outcome->out, 1500));
  return {};
}

}  // namespace

std::vector<double> latency_samples(const json& output, const std::string& field,
                                    const std::string& phase) {
  std::vector<double> out;
  if (field.empty() || !output.is_object() || !output.contains(field)) return out;
  const json& l = output[field];
  if (!l.is_object() || !l.contains(phase)) return out;
  const json& v = l[phase];
  if (v.is_number()) out.push_back(v.get<double>());
  if (v.is_array())
    for (const json& x : v)
      if (x.is_number()) out.push_back(x.get<double>());
  return out;
}

PhaseLatency compare_phase_latency(const std::string& phase, const std::vector<double>& base_ms,
                                   const std::vector<double>& candidate_ms, double confidence,
                                   double max_regression) {
  PhaseLatency p;
  p.phase = phase;
  p.base_ms = base_ms;
  p.candidate_ms = candidate_ms;
  p.base_median_ms = median_or_zero(base_ms);
  p.candidate_median_ms = median_or_zero(candidate_ms);
  p.ratio = paired_ratio_interval(candidate_ms, base_ms, confidence);
  if (p.ratio.pairs == 0 || p.ratio.low <= 0 || !std::isfinite(p.ratio.high))
    p.verdict = "inconclusive";
  else if (p.ratio.high < 1)
    p.verdict = "faster";
  else if (p.ratio.low > 1 && p.ratio.estimate > 1 + max_regression)
    p.verdict = "slower";
  else
    p.verdict = "same";
  return p;
}

void decide(WorkloadValidation& v, bool require_gain) {
  if (!v.outputs.matched) {
    v.status = "output_changed";
    v.reason = "the candidate changes the workload's output: " + v.outputs.summary();
    if (!v.base_deterministic)
      v.reason += " (note: the base's own runs disagree: " + v.base_disagreement + ")";
    return;
  }
  if (v.sanitizer_clean && !*v.sanitizer_clean) {
    v.status = "sanitizer";
    v.reason = "compute-sanitizer reports errors in the workload with the candidate";
    return;
  }
  std::string faster, slower;
  for (const PhaseLatency& p : v.phases) {
    std::string item = p.phase + " " + pct_change(p.ratio.estimate);
    if (p.verdict == "slower") slower += (slower.empty() ? "" : ", ") + item;
    if (p.verdict == "faster") faster += (faster.empty() ? "" : ", ") + item;
  }
  if (!slower.empty()) {
    v.status = "slower";
    v.reason = "end to end the workload is slower: " + slower;
    return;
  }
  if (require_gain && faster.empty()) {
    v.status = "no_gain";
    v.reason = v.phases.empty() ? "the workload reports no latency to compare"
                                : "no phase of the workload is measurably faster end to end";
    return;
  }
  v.status = "passed";
  v.reason = "outputs match" +
             (faster.empty() ? std::string(", no phase slower") : "; faster end to end: " + faster);
}

json WorkloadValidation::to_json() const {
  json phases_json = json::array();
  for (const PhaseLatency& p : phases)
    phases_json.push_back({{"phase", p.phase},
                           {"verdict", p.verdict},
                           {"base_median_ms", p.base_median_ms},
                           {"candidate_median_ms", p.candidate_median_ms},
                           {"ratio", p.ratio.to_json()},
                           {"base_ms", p.base_ms},
                           {"candidate_ms", p.candidate_ms}});
  json j = {{"status", status},
            {"passed", proposable()},
            {"reason", reason},
            {"runs", runs},
            {"outputs", outputs.to_json()},
            {"base_deterministic", base_deterministic},
            {"phases", phases_json},
            {"notes", notes}};
  if (!base_deterministic) j["base_disagreement"] = base_disagreement;
  if (sanitizer_clean) {
    j["sanitizer_clean"] = *sanitizer_clean;
    j["sanitizer_report"] = sanitizer_report;
  }
  return j;
}

Result<WorkloadValidation> validate_in_workload(const WorkloadSpec& spec,
                                                const std::filesystem::path& base_root,
                                                const std::filesystem::path& candidate_root,
                                                const WorkloadValidationOptions& options) {
  WorkloadValidation v;
  v.runs = options.runs > 0 ? options.runs : spec.runs;
  double confidence = options.confidence > 0 ? options.confidence : spec.confidence.value_or(0.95);
  double max_regression =
      options.max_regression >= 0 ? options.max_regression : spec.max_regression.value_or(0.03);
  if (options.build) {
    KGATE_RETURN_IF_ERROR(build_tree(spec, base_root, "base"));
    if (Status s = build_tree(spec, candidate_root, "candidate"); !s.ok()) {
      v.status = "failed";
      v.reason = s.error().message;
      return v;
    }
  }
  std::vector<json> base_out, cand_out;
  for (int round = 0; round < v.runs; ++round) {
    bool base_first = round % 2 == 0;  // alternate so drift hits both alike
    for (int side = 0; side < 2; ++side) {
      bool base = (side == 0) == base_first;
      progress("workload: round " + std::to_string(round + 1) + "/" + std::to_string(v.runs) +
               ", " + (base ? "base" : "candidate"));
      RunResult r = run_once(spec, base ? base_root : candidate_root, spec.command);
      if (!r.ok) {
        if (base) return Error::check_failed("the base workload failed: " + r.failure);
        v.status = "failed";
        v.reason = "the workload failed with the candidate: " + r.failure;
        return v;
      }
      (base ? base_out : cand_out).push_back(std::move(r.output));
    }
  }
  // The base against itself: a workload that is not deterministic cannot
  // tell a changed output from its own noise.
  for (size_t i = 1; i < base_out.size(); ++i) {
    auto self = compare_workload_outputs(base_out[0], base_out[i], spec.compare);
    if (!self.matched) {
      v.base_deterministic = false;
      v.base_disagreement = self.summary();
      break;
    }
  }
  v.outputs = compare_workload_outputs(base_out[0], cand_out[0], spec.compare);
  for (size_t i = 1; i < cand_out.size() && v.outputs.matched; ++i)
    v.outputs = compare_workload_outputs(base_out[0], cand_out[i], spec.compare);
  for (const std::string& phase : spec.phases) {
    std::vector<double> b, c;
    for (size_t i = 0; i < base_out.size() && i < cand_out.size(); ++i) {
      auto bs = latency_samples(base_out[i], spec.latency, phase);
      auto cs = latency_samples(cand_out[i], spec.latency, phase);
      size_t n = std::min(bs.size(), cs.size());  // pair within the round only
      b.insert(b.end(), bs.begin(), bs.begin() + long(n));
      c.insert(c.end(), cs.begin(), cs.begin() + long(n));
    }
    if (b.empty()) {
      v.notes.push_back("no latency for phase " + phase + " in the output's \"" + spec.latency +
                        "\"");
      continue;
    }
    v.phases.push_back(compare_phase_latency(phase, b, c, confidence, max_regression));
  }
  if (options.sanitize) {
    std::string sanitizer = find_compute_sanitizer();
    if (sanitizer.empty()) {
      v.notes.push_back("--sanitize: compute-sanitizer not found (PATH, $CUDA_HOME/bin)");
    } else {
      progress("workload: the candidate under compute-sanitizer");
      std::string command = spec.sanitize_command.empty() ? spec.command : spec.sanitize_command;
      RunResult r = run_once(
          spec, candidate_root, command,
          {sanitizer, "--tool", "memcheck", "--target-processes", "all", "--error-exitcode", "86"});
      v.sanitizer_clean = r.ok;
      if (!r.ok) v.sanitizer_report = tail(r.failure, 3000);
    }
  }
  decide(v, options.require_gain);
  return v;
}

std::string workload_validation_markdown(const json& v) {
  if (!v.is_object()) return "";
  std::ostringstream md;
  std::string status = v.value("status", "");
  md << "### In-model validation\n\n";
  md << (v.value("passed", false) ? "**Passed**" : "**Not passed (" + status + ")**") << ": "
     << v.value("reason", "") << "\n\n";
  md << "The workload ran " << v.value("runs", 0)
     << " times with the base and with the candidate, interleaved.";
  if (v.contains("outputs")) md << " Outputs: " << v["outputs"].value("summary", "") << ".";
  md << "\n\n";
  if (v.contains("phases") && !v["phases"].empty()) {
    md << "| phase | base (median) | candidate (median) | change [interval] | verdict |\n";
    md << "|---|---|---|---|---|\n";
    for (const json& p : v["phases"]) {
      RatioInterval r = RatioInterval::from_json(p.value("ratio", json::object()));
      std::ostringstream row;
      row.setf(std::ios::fixed);
      row.precision(3);
      row << "| " << p.value("phase", "") << " | " << p.value("base_median_ms", 0.0) << " ms | "
          << p.value("candidate_median_ms", 0.0) << " ms | " << pct_change(r.estimate);
      if (r.low > 0 && std::isfinite(r.high))
        row << " [" << pct_change(r.low) << ", " << pct_change(r.high) << "] at "
            << int(std::lround(r.confidence * 100)) << "%";
      row << " | " << p.value("verdict", "") << " |\n";
      md << row.str();
    }
    md << "\n";
  }
  if (!v.value("base_deterministic", true))
    md << "Note: the base's own runs disagree (" << v.value("base_disagreement", "")
       << "); output comparisons are unreliable.\n\n";
  if (v.contains("sanitizer_clean"))
    md << "compute-sanitizer (memcheck): "
       << (v["sanitizer_clean"].get<bool>()
               ? "clean"
               : "errors:\n\n```\n" + v.value("sanitizer_report", "") + "\n```")
       << "\n\n";
  for (const json& n : v.value("notes", json::array())) md << "- " << n.get<std::string>() << "\n";
  return md.str();
}

}  // namespace kgate
