#pragma once
// What a provider is asked: propose a candidate, re-plan without code after
// repeated compile failures, or reflect on a result. Both forms travel: the
// rendered text (for models) and the structured context (for the built-in
// tuner and external commands, which get the whole request as JSON).
#include <string>

#include <nlohmann/json.hpp>

namespace kgate {

enum class AgentTask { kPropose, kReplan, kReflect };
std::string_view to_string(AgentTask task);

struct AgentRequest {
  AgentTask task = AgentTask::kPropose;
  std::string system;              // the standing instruction
  std::string prompt;              // the rendered context and question
  nlohmann::json context;          // the same facts, structured
  bool structured_answer = false;  // ask for agent_answer_schema() where supported

  // {"task", "system", "prompt", "context"}: what the command provider writes on stdin.
  nlohmann::json to_json() const;
};

}  // namespace kgate
