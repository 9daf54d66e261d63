#include "agent/candidate_evaluator.h"

#include "core/hash.h"
#include "core/number_format.h"

namespace kgate {

ShapeVerdict to_shape_verdict(Verdict v) {
  switch (v) {
    case Verdict::kFaster:
      return ShapeVerdict::kFaster;
    case Verdict::kSlower:
      return ShapeVerdict::kSlower;
    case Verdict::kSame:
      return ShapeVerdict::kSame;
    case Verdict::kInconclusive:
      return ShapeVerdict::kInconclusive;
    case Verdict::kIncorrect:
      return ShapeVerdict::kWrong;
    case Verdict::kNew:
      return ShapeVerdict::kSame;
    case Verdict::kError:
      return ShapeVerdict::kError;
    case Verdict::kChecked:
      return ShapeVerdict::kChecked;
  }
  return ShapeVerdict::kError;
}

nlohmann::json Candidate::to_json() const {
  nlohmann::json t = nlohmann::json::object();
  for (const auto& [k, v] : tunables) t[k] = v;
  return {{"tunables", t}, {"flags", flags}, {"has_source", source_text.has_value()}};
}

std::string Candidate::fingerprint() const {
  std::string key = source_text ? "src:" + sha256_hex(*source_text) : "src:repository";
  for (const auto& [k, v] : tunables) key += "|" + k + "=" + std::to_string(v);
  for (const std::string& f : flags) key += "|flag:" + f;
  return sha256_hex(key).substr(0, 16);
}

std::string_view to_string(ShapeVerdict verdict) {
  switch (verdict) {
    case ShapeVerdict::kFaster:
      return "faster";
    case ShapeVerdict::kSlower:
      return "slower";
    case ShapeVerdict::kSame:
      return "same";
    case ShapeVerdict::kInconclusive:
      return "inconclusive";
    case ShapeVerdict::kWrong:
      return "wrong";
    case ShapeVerdict::kError:
      return "error";
    case ShapeVerdict::kChecked:
      return "checked";
  }
  return "error";
}

static ShapeVerdict verdict_from(const std::string& s) {
  for (ShapeVerdict v : {ShapeVerdict::kFaster, ShapeVerdict::kSlower, ShapeVerdict::kSame,
                         ShapeVerdict::kInconclusive, ShapeVerdict::kWrong, ShapeVerdict::kChecked})
    if (to_string(v) == s) return v;
  return ShapeVerdict::kError;
}

nlohmann::json ShapeEvaluation::to_json() const {
  return {{"shape", shape},
          {"phase", phase},
          {"verdict", to_string(verdict)},
          {"reason", reason},
          {"counts", counts},
          {"best_s", best_s},
          {"candidate_s", candidate_s},
          {"ratio", ratio},
          {"ratio_ci", {ratio_lo, ratio_hi}},
          {"max_abs_error", max_abs_error},
          {"max_rel_error", max_rel_error},
          {"bytes_moved", bytes_moved},
          {"samples", samples}};
}

ShapeEvaluation ShapeEvaluation::from_json(const nlohmann::json& j) {
  ShapeEvaluation s;
  s.shape = j.value("shape", "");
  s.phase = j.value("phase", "");
  s.verdict = verdict_from(j.value("verdict", "error"));
  s.reason = j.value("reason", "");
  s.counts = j.value("counts", true);
  s.best_s = j.value("best_s", 0.0);
  s.candidate_s = j.value("candidate_s", 0.0);
  s.ratio = j.value("ratio", 0.0);
  if (j.contains("ratio_ci") && j["ratio_ci"].is_array() && j["ratio_ci"].size() == 2) {
    s.ratio_lo = j["ratio_ci"][0].get<double>();
    s.ratio_hi = j["ratio_ci"][1].get<double>();
  }
  s.max_abs_error = j.value("max_abs_error", 0.0);
  s.max_rel_error = j.value("max_rel_error", 0.0);
  s.bytes_moved = j.value("bytes_moved", size_t{0});
  s.samples = j.value("samples", 0);
  return s;
}

nlohmann::json Evaluation::to_json() const {
  nlohmann::json j = {{"compiled", compiled},
                      {"refused", refused},
                      {"correct", correct},
                      {"improved", improved},
                      {"geomean_ratio", geomean_ratio},
                      {"summary", summary},
                      {"engine", engine},
                      {"shapes", nlohmann::json::array()}};
  if (!compiled)
    j["compile_digest"] = compile_digest;
  else
    j["resources"] = resources.to_json();
  for (const ShapeEvaluation& s : shapes) j["shapes"].push_back(s.to_json());
  if (!device.is_null()) j["device"] = device;
  return j;
}

void Evaluation::conclude(bool any_faster, bool any_worse, double min_improvement) {
  improved = any_faster && !any_worse && geomean_ratio <= 1 - min_improvement;
  // Which shapes lost, so the record and the reflection say what bound a
  // rejected candidate that was faster overall.
  std::string slower;
  for (const ShapeEvaluation& s : shapes)
    if (s.counts && s.verdict == ShapeVerdict::kSlower)
      slower += (slower.empty() ? "" : ", ") + s.shape + " x" + format_number(s.ratio);
  summary = std::string(improved ? "improved"
                        : any_worse
                            ? "slower on some shapes" + (slower.empty() ? "" : " (" + slower + ")")
                            : "no gain") +
            ": geomean time ratio " + format_number(geomean_ratio) + " (speedup " +
            format_number(1 / geomean_ratio) + "x)";
}

Evaluation Evaluation::from_json(const nlohmann::json& j) {
  Evaluation e;
  e.compiled = j.value("compiled", false);
  e.refused = j.value("refused", false);
  e.compile_digest = j.value("compile_digest", "");
  if (j.contains("resources")) e.resources = ResourceReport::from_json(j["resources"]);
  e.correct = j.value("correct", false);
  e.improved = j.value("improved", false);
  e.geomean_ratio = j.value("geomean_ratio", 1.0);
  e.summary = j.value("summary", "");
  e.engine = j.value("engine", "");
  if (j.contains("device")) e.device = j["device"];
  if (j.contains("shapes"))
    for (const auto& s : j["shapes"]) e.shapes.push_back(ShapeEvaluation::from_json(s));
  return e;
}

}  // namespace kgate
