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

nlohmann::json AgentRequest::to_json() const {
  return {{"task", to_string(task)}, {"system", system}, {"prompt", prompt}, {"context", context}};
}

}  // namespace kgate
