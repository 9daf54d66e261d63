#pragma once
// The hand-off agent (docs/agent.md, "Hand-off episodes"), for GPU hosts
// that cannot reach a model: each request is left as a file
// (turns/request-<id>.json, turn_journal.h) and the episode stops there,
// waiting, with exit code 4. Run again once the answer is in place
// (turns/answer-<id>.txt), on this machine or on another one the state
// folder was moved to, it continues where it stopped.
//
// Invariant: ask() never blocks and never guesses: it returns the placed
// answer to exactly this request, an Error of kind kWaitingForAnswer when
// there is none yet, or a bad-input Error for an answer that cannot be it.
#include <memory>

#include "agent/agent_provider.h"
#include "core/exit_code.h"

namespace kgate {

// The exit code of a run that stopped at a model turn to wait for its
// answer: not 1, 2 or 3 (a gate failed, bad input, infrastructure).
inline constexpr ExitCode kWaitingForAnswer = static_cast<ExitCode>(4);

std::unique_ptr<AgentProvider> make_handoff_provider();

}  // namespace kgate
