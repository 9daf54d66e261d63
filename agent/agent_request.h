#pragma once
// What a provider is asked: propose a candidate, re-plan without code after
// repeated compile failures, or reflect on a result. Both forms travel: the
// rendered text (for models) and the structured context (for the built-in
// tuner and external commands, which get the whole request as JSON).
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/status.h"

namespace kgate {

enum class AgentTask { kPropose, kReplan, kReflect };
std::string_view to_string(AgentTask task);
std::optional<AgentTask> agent_task_from_string(std::string_view name);

// Which model turn of its episode a request is and where it is kept
// (agent/turn_journal.h). Set by the episode; read by the providers that
// answer from files (handoff, replay).
struct TurnFiles {
  int number = 0;                 // the episode's model turns count from 1
  std::string id;                 // "<number>-<12 hex of the request file's SHA-256>"
  std::filesystem::path request;  // turns/request-<id>.json
  std::filesystem::path answer;   // turns/answer-<id>.txt
};

struct AgentRequest {
  AgentTask task = AgentTask::kPropose;
  std::string system;              // the standing instruction
  std::string prompt;              // the rendered context and question
  nlohmann::json context;          // the same facts, structured
  bool structured_answer = false;  // ask for agent_answer_schema() where supported
  std::optional<TurnFiles> turn;   // not part of the request's text

  // {"task", "system", "prompt", "context"}: what the command provider writes on stdin.
  nlohmann::json to_json() const;
  // to_json() as one line of text, exactly the command provider's stdin and
  // a hand-off's request file. Invalid UTF-8 (a source file in Latin-1) is
  // replaced (U+FFFD), not an exception.
  std::string file_text() const;
  // Back from file_text(); file_text() of the result is the same text.
  static Result<AgentRequest> from_text(const std::string& text);
};

}  // namespace kgate
