#include "agent/episode_best.h"

#include <algorithm>

#include "agent/persisted_json.h"

namespace kgate {

Candidate recorded_candidate(const nlohmann::json& settings, std::string source_text,
                             std::string file_name) {
  Candidate c;
  c.source_text = std::move(source_text);
  const nlohmann::json tunables = object_field(settings, "tunables");
  for (const auto& [k, x] : tunables.items())
    if (x.is_number_integer()) c.tunables[k] = x.get<int64_t>();
  for (const auto& x : array_field(settings, "flags"))
    if (x.is_string()) c.flags.push_back(x.get<std::string>());
  c.launch = CandidateLaunch::from_json(object_field(settings, "launch"));
  c.file_name = std::move(file_name);
  return c;
}

std::vector<ShapeEvaluation> recorded_best_timing(const EpisodeRecord& r) {
  const Evaluation* kept = r.final_evaluation ? &*r.final_evaluation : nullptr;
  if (!kept && r.best_iteration > 0 && r.best_iteration <= static_cast<int>(r.iterations.size())) {
    const auto& it = r.iterations[r.best_iteration - 1];
    if (it.evaluation) kept = &*it.evaluation;
  }
  if (kept) {
    std::vector<ShapeEvaluation> t = kept->shapes;
    for (ShapeEvaluation& s : t) s.best_s = s.candidate_s;
    return t;
  }
  return r.baseline ? r.baseline->shapes : std::vector<ShapeEvaluation>{};
}

ResourceReport recorded_best_resources(const EpisodeRecord& r) {
  if (r.best_iteration > 0 && r.best_iteration <= static_cast<int>(r.iterations.size())) {
    const auto& it = r.iterations[r.best_iteration - 1];
    if (it.evaluation) return it.evaluation->resources;
  }
  return r.baseline ? r.baseline->resources : ResourceReport{};
}

std::string settings_diff(const Candidate& from, const Candidate& to) {
  std::string s;
  for (const auto& [k, v] : to.tunables) {
    auto it = from.tunables.find(k);
    if (it == from.tunables.end() || it->second != v)
      s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
  }
  for (const std::string& f : to.flags)
    if (std::find(from.flags.begin(), from.flags.end(), f) == from.flags.end())
      s += (s.empty() ? "" : " ") + f;
  if (to.source_text && from.source_text != to.source_text)
    s += (s.empty() ? "" : " ") + std::string("source edited");
  if (to.launch != from.launch)
    s += (s.empty() ? "" : " ") +
         (to.launch ? "launch " + to.launch->text() : std::string("the manifest's launch"));
  return s.empty() ? "no change" : s;
}

}  // namespace kgate
