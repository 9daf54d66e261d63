#include "agent/candidate_evaluator.h"

#include "agent/persisted_json.h"
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
  nlohmann::json j = {{"tunables", t}, {"flags", flags}, {"has_source", source_text.has_value()}};
  // The source's hash tells candidates of the same settings apart (the
  // tuner's source moves: register caps, unroll pragmas).
  if (source_text) j["source_sha256"] = sha256_hex(*source_text).substr(0, 16);
  if (launch) j["launch"] = launch->to_json();
  return j;
}

std::string Candidate::fingerprint() const {
  std::string key = source_text ? "src:" + sha256_hex(*source_text) : "src:repository";
  for (const auto& [k, v] : tunables) key += "|" + k + "=" + std::to_string(v);
  for (const std::string& f : flags) key += "|flag:" + f;
  if (launch) key += "|launch:" + launch->to_json().dump();
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

// ResourceReport::from_json, tolerating nulls and other types (-1: unknown).
static ResourceReport resources_from(const nlohmann::json& j) {
  ResourceReport r;
  auto field = [&](const char* key) { return static_cast<int>(integer_field(j, key, -1)); };
  r.registers = field("registers");
  r.spill_store_bytes = field("spill_store_bytes");
  r.spill_load_bytes = field("spill_load_bytes");
  r.shared_bytes = field("shared_bytes");
  r.stack_bytes = field("stack_bytes");
  r.local_bytes = field("local_bytes");
  r.max_threads_per_block = field("max_threads_per_block");
  return r;
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
          {"best_s", finite_or_null(best_s)},
          {"candidate_s", finite_or_null(candidate_s)},
          {"ratio", finite_or_null(ratio)},
          {"ratio_ci", {finite_or_null(ratio_lo), finite_or_null(ratio_hi)}},
          {"max_abs_error", finite_or_null(max_abs_error)},
          {"max_rel_error", finite_or_null(max_rel_error)},
          {"bytes_moved", bytes_moved},
          {"samples", samples}};
}

ShapeEvaluation ShapeEvaluation::from_json(const nlohmann::json& j) {
  // Null where a run produced NaN (a wrong or crashed candidate): read as 0.
  ShapeEvaluation s;
  s.shape = string_field(j, "shape");
  s.phase = string_field(j, "phase");
  s.verdict = verdict_from(string_field(j, "verdict", "error"));
  s.reason = string_field(j, "reason");
  s.counts = bool_field(j, "counts", true);
  s.best_s = number_field(j, "best_s", 0);
  s.candidate_s = number_field(j, "candidate_s", 0);
  s.ratio = number_field(j, "ratio", 0);
  const nlohmann::json ci = array_field(j, "ratio_ci");
  if (ci.size() == 2) {
    s.ratio_lo = as_number(ci[0], 0);
    s.ratio_hi = as_number(ci[1], 0);
  }
  s.max_abs_error = number_field(j, "max_abs_error", 0);
  s.max_rel_error = number_field(j, "max_rel_error", 0);
  s.bytes_moved = static_cast<size_t>(unsigned_field(j, "bytes_moved", 0));
  s.samples = static_cast<int>(integer_field(j, "samples", 0));
  return s;
}

nlohmann::json Evaluation::to_json() const {
  nlohmann::json j = {{"compiled", compiled},
                      {"refused", refused},
                      {"correct", correct},
                      {"improved", improved},
                      {"geomean_ratio", finite_or_null(geomean_ratio)},
                      {"summary", summary},
                      {"engine", engine},
                      {"shapes", nlohmann::json::array()}};
  if (!compiled)
    j["compile_digest"] = compile_digest;
  else
    j["resources"] = resources.to_json();
  for (const ShapeEvaluation& s : shapes) j["shapes"].push_back(s.to_json());
  if (!device.is_null()) j["device"] = device;
  if (invalid) j["invalid"] = true;
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
  e.compiled = bool_field(j, "compiled", false);
  e.refused = bool_field(j, "refused", false);
  e.invalid = bool_field(j, "invalid", false);
  e.compile_digest = string_field(j, "compile_digest");
  e.resources = resources_from(object_field(j, "resources"));
  e.correct = bool_field(j, "correct", false);
  e.improved = bool_field(j, "improved", false);
  e.geomean_ratio = number_field(j, "geomean_ratio", 1);
  e.summary = string_field(j, "summary");
  e.engine = string_field(j, "engine");
  if (j.is_object() && j.contains("device") && j["device"].is_object()) e.device = j["device"];
  for (const auto& s : array_field(j, "shapes"))
    if (s.is_object()) e.shapes.push_back(ShapeEvaluation::from_json(s));
  return e;
}

}  // namespace kgate
