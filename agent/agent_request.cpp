#include "agent/agent_request.h"

namespace kgate {

std::string_view to_string(AgentTask task) {
  switch (task) {
    case AgentTask::kPropose:
      return "propose";
    case AgentTask::kReplan:
      return "replan";
    case AgentTask::kReflect:
      return "reflect";
  }
  return "propose";
}

std::optional<AgentTask> agent_task_from_string(std::string_view name) {
  for (AgentTask t : {AgentTask::kPropose, AgentTask::kReplan, AgentTask::kReflect})
    if (to_string(t) == name) return t;
  return std::nullopt;
}

nlohmann::json AgentRequest::to_json() const {
  return {{"task", to_string(task)}, {"system", system}, {"prompt", prompt}, {"context", context}};
}

std::string AgentRequest::file_text() const {
  return to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<AgentRequest> AgentRequest::from_text(const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return Error::bad_input("not a request (not a JSON object)");
  auto field = [&](const char* key) -> const nlohmann::json* {
    auto it = j.find(key);
    return it == j.end() ? nullptr : &*it;
  };
  const nlohmann::json* task = field("task");
  const nlohmann::json* system = field("system");
  const nlohmann::json* prompt = field("prompt");
  const nlohmann::json* context = field("context");
  if (!task || !task->is_string() || !agent_task_from_string(task->get<std::string>()))
    return Error::bad_input("not a request: \"task\" is not propose, replan or reflect");
  if (!system || !system->is_string() || !prompt || !prompt->is_string() || !context)
    return Error::bad_input("not a request: \"system\", \"prompt\" or \"context\" is missing");
  AgentRequest r;
  r.task = *agent_task_from_string(task->get<std::string>());
  r.system = system->get<std::string>();
  r.prompt = prompt->get<std::string>();
  r.context = *context;
  r.structured_answer = r.task == AgentTask::kPropose;
  return r;
}

}  // namespace kgate
