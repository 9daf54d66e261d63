#pragma once
// One line saying what held an episode's result back when it proposed
// nothing, for the sweep's table and `kgate optimize`: the best speedup it
// saw, on which shape, and which shape or check rejected it ("1.63x on
// prefill-2k, rejected: slower on decode-b1 x1.05", "wrong on
// misaligned-4097x3"), instead of a bare "no improvement".
#include <string>

#include <nlohmann/json.hpp>

#include "agent/episode_record.h"

namespace kgate {

// Why `e` was not kept: "slower on decode-b1 x1.05", "wrong on odd-5x4097",
// "no shape faster beyond noise (geomean 1.02x)", "does not compile", or the
// rule it broke.
std::string rejection_reason(const Evaluation& e);

// "1.63x on prefill-2k": the largest gain of a correct evaluation, per
// shape; "" when no shape was faster.
std::string best_gain(const Evaluation& e);

// Why the episode in `r` led to no proposal: the final gate's rejection of
// the best, the in-model validation's refusal (`workload_validation`, null
// when it did not run), or, when no candidate was kept, the closest one and
// what rejected it, else a count of the outcomes.
std::string no_proposal_reason(const EpisodeRecord& r, const nlohmann::json& workload_validation);

}  // namespace kgate
