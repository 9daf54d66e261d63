#include "agent/episode_explanation.h"

#include <cmath>
#include <map>

#include "agent/persisted_json.h"
#include "core/number_format.h"

namespace kgate {
namespace {

bool failed(const ShapeEvaluation& s) {
  return s.verdict == ShapeVerdict::kWrong || s.verdict == ShapeVerdict::kError;
}

double speedup_of(const Evaluation& e) {
  const double s = 1 / e.geomean_ratio;
  return std::isfinite(s) ? s : 0;
}

std::string cut(std::string text, size_t n) {
  if (size_t nl = text.find('\n'); nl != std::string::npos) text = text.substr(0, nl);
  return text.size() > n ? text.substr(0, n - 3) + "..." : text;
}

}  // namespace

std::string rejection_reason(const Evaluation& e) {
  if (!e.compiled) return e.refused ? "refused flags" : "does not compile";
  if (e.invalid) {
    std::string s = e.summary;
    if (s.rfind("rejected: ", 0) == 0) s = s.substr(10);
    return cut(s, 120);
  }
  if (!e.correct) {
    for (const ShapeEvaluation& s : e.shapes)
      if (failed(s))
        return std::string(s.verdict == ShapeVerdict::kWrong ? "wrong on " : "failed on ") +
               s.shape;
    return "wrong";
  }
  std::string slower;
  for (const ShapeEvaluation& s : e.shapes)
    if (s.counts && s.verdict == ShapeVerdict::kSlower)
      slower += (slower.empty() ? "" : ", ") + s.shape + " x" + format_number(s.ratio);
  if (!slower.empty()) return "slower on " + slower;
  if (e.improved) return "";
  return "no shape faster beyond noise and the gate's threshold (geomean " +
         format_number(speedup_of(e)) + "x)";
}

std::string best_gain(const Evaluation& e) {
  if (!e.correct) return "";
  const ShapeEvaluation* best = nullptr;
  // Only gains the gate called faster: a shape within noise gained nothing.
  for (const ShapeEvaluation& s : e.shapes)
    if (s.verdict == ShapeVerdict::kFaster && s.ratio > 0 && std::isfinite(s.ratio) &&
        (!best || s.ratio < best->ratio))
      best = &s;
  return best ? format_number(1 / best->ratio) + "x on " + best->shape : "";
}

std::string no_proposal_reason(const EpisodeRecord& r, const nlohmann::json& workload_validation) {
  if (r.best_iteration > 0 && r.final_evaluation) {
    const Evaluation& f = *r.final_evaluation;
    std::string gain = best_gain(f);
    if (gain.empty()) gain = format_number(r.best_speedup) + "x in the search";  // none faster now
    if (!f.improved) return gain + ", rejected by the final gate: " + rejection_reason(f);
    if (workload_validation.is_object() && !bool_field(workload_validation, "passed", true))
      return gain + ", rejected inside the workload: " +
             cut(string_field(workload_validation, "reason", "validation failed"), 120);
    return gain + ", not proposed";
  }
  // Nothing kept: the closest candidate and what rejected it.
  const IterationRecord* closest = nullptr;
  for (const IterationRecord& it : r.iterations)
    if (it.evaluation && it.evaluation->correct && speedup_of(*it.evaluation) > 1 &&
        (!closest || speedup_of(*it.evaluation) > speedup_of(*closest->evaluation)))
      closest = &it;
  if (closest) {
    const Evaluation& e = *closest->evaluation;
    const std::string gain = best_gain(e);
    const std::string iteration = " (iteration " + std::to_string(closest->index) + ")";
    if (gain.empty())
      return "no improvement: the closest, " + format_number(speedup_of(e)) + "x" + iteration +
             ", had " + rejection_reason(e);
    return gain + iteration + ", rejected: " + rejection_reason(e);
  }
  // Count what happened, naming the shape of the newest wrong result.
  std::map<std::string, int> outcomes;
  std::string wrong_on;
  for (const IterationRecord& it : r.iterations) {
    ++outcomes[it.outcome.empty() ? "unfinished" : it.outcome];
    if (it.outcome == "wrong" && it.evaluation) wrong_on = rejection_reason(*it.evaluation);
    if (it.outcome == "invalid") wrong_on = cut(it.failure, 100);
  }
  if (outcomes.empty()) return "no candidate was gated (" + r.stop_reason + ")";
  std::string s = "no improvement: ";
  bool first = true;
  for (const auto& [outcome, n] : outcomes) {
    s += (first ? "" : ", ") + std::to_string(n) + " " + outcome;
    first = false;
  }
  if (!wrong_on.empty()) s += "; last rejection: " + wrong_on;
  return s;
}

}  // namespace kgate
