#pragma once
// Answers an episode from recorded turns (docs/agent.md, "Replaying recorded
// answers"): a turns/ folder of an earlier episode (turn_journal.h), or a
// copy of one kept under bench/, so a table made with a model can be scored
// again without one. Turn N gets the recorded answer N; the candidates are
// compiled, checked and timed again here, so the scores are this machine's.
//
// A turn whose recorded request was another task (the replay went another
// way: a re-plan here where the recording had none) or another kernel is an
// Error naming both. Past the last recorded answer a propose is answered
// "STOP:", so the episode ends with its final gate; a re-plan or reflect
// there is an Error.
#include <filesystem>
#include <memory>

#include "agent/agent_provider.h"

namespace kgate {

// An Error (bad input) when `turns_dir` holds no recorded answers.
Result<std::unique_ptr<AgentProvider>> make_replay_provider(const std::filesystem::path& turns_dir);

}  // namespace kgate
