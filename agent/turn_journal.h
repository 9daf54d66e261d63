#pragma once
// The model turns of an episode as files in its folder (docs/agent.md,
// "Hand-off episodes"): turns/request-<id>.json is the request exactly as
// the command provider writes it on stdin (AgentRequest::file_text) and
// turns/answer-<id>.txt is the answer's text. The id is the turn's number
// and the first 12 hex digits of the request file's SHA-256, so an answer's
// name says which request it answers: one written for another request (an
// earlier version of the turn, another episode's) has another name and is
// never taken for this one.
//
// Every model provider's turns are kept (the tuner's are not), so any
// recorded episode can be replayed (replay_provider.h). The record refers to
// these files relative to the episode folder: a state folder moved to
// another path or machine still finds them.
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "agent/agent_request.h"
#include "core/status.h"

namespace kgate {

inline constexpr const char* kTurnsFolder = "turns";

// The files of turn `number` whose request file is `request_text`, under
// `episode_dir`/turns.
TurnFiles turn_files(const std::filesystem::path& episode_dir, int number,
                     const std::string& request_text);

// Writes the request file unless it is there (same name: same text).
Status record_request(const TurnFiles& turn, const std::string& request_text);
// Writes the answer file unless one is there (a hand-off's, placed by a person).
Status record_answer(const TurnFiles& turn, const std::string& answer);

struct PlacedAnswer {
  std::optional<std::string> text;  // none yet
  // Answers in the folder for earlier versions of this turn's request
  // (asked again after a crash), which do not answer this one; "" if none.
  std::string note;
};
// The answer placed for `turn`. An Error (bad input) naming the file and
// where the answer belongs when the answer file is empty, or when the turns
// folder holds an answer to no request of this episode (copied from another
// episode, or named by hand without the request's id).
Result<PlacedAnswer> placed_answer(const TurnFiles& turn);

// The answers in a turns folder (an episode's turns/, or a copy under
// bench/), by turn number; `request` is empty where its request file is not
// there. An Error when the folder cannot be read, holds no answer, or holds
// two answers for one turn.
Result<std::map<int, TurnFiles>> recorded_turns(const std::filesystem::path& turns_dir);

}  // namespace kgate
