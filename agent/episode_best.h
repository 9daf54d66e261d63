#pragma once
// The current best of an episode as its record tells it: the candidate
// (its settings from the record, its text from its file), its timing per
// shape and its compiler resources, and how a candidate differs from it.
// Read again by every run of an episode, so a resumed or continued episode
// sees the best as the run that kept it did.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/candidate_evaluator.h"
#include "agent/episode_record.h"

namespace kgate {

// The candidate whose settings are `settings` (Candidate::to_json) and
// whose text is `source_text`, named `file_name` in compile errors.
Candidate recorded_candidate(const nlohmann::json& settings, std::string source_text,
                             std::string file_name);

// The timing of the current best, per shape (best_s is its median): the
// final gate's once the episode has one (the freshest), else the gate that
// kept it, else the original's.
std::vector<ShapeEvaluation> recorded_best_timing(const EpisodeRecord& r);
// The compiler's report on the current best (the original's before any).
ResourceReport recorded_best_resources(const EpisodeRecord& r);

// "ACCUMULATORS=8 -O3": the settings `to` changes relative to `from`.
std::string settings_diff(const Candidate& from, const Candidate& to);

}  // namespace kgate
