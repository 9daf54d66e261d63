#include "agent/agent_provider.h"

#include <cstdlib>

#include "agent/chat_provider.h"
#include "agent/command_provider.h"
#include "agent/handoff_provider.h"
#include "agent/replay_provider.h"
#include "agent/tuner_provider.h"

namespace kgate {

Result<std::unique_ptr<AgentProvider>> make_provider(const ProviderConfig& config) {
  if (config.name == "tuner") return make_tuner_provider(config.seed);
  if (config.name == "command") {
    std::string command = config.command;
    if (command.empty()) {
      const char* v = std::getenv("KGATE_AGENT_COMMAND");
      if (v) command = v;
    }
    if (command.empty())
      return Error::bad_input(
          "the command agent needs a program: pass --agent-command or set KGATE_AGENT_COMMAND");
    return make_command_provider(command, config.command_timeout_s);
  }
  if (config.name == "handoff") return make_handoff_provider();
  if (config.name == "replay") {
    if (config.answers.empty())
      return Error::bad_input(
          "the replay agent needs recorded answers: pass --answers DIR (an episode's turns/ "
          "folder, or a copy of one)");
    return make_replay_provider(config.answers);
  }
  if (config.name == "openai") {
    ChatConfig c = openai_config_from_env();
    c.retry.seed = config.seed;
    if (c.api_key.empty() && is_official_api(c.base_url, "api.openai.com"))
      return Error::bad_input(
          "the openai agent needs a key: set OPENAI_API_KEY (or OPENAI_BASE_URL for a local "
          "server)");
    return make_openai_provider(std::move(c));
  }
  if (config.name == "anthropic") {
    ChatConfig c = anthropic_config_from_env();
    c.retry.seed = config.seed;
    if (c.api_key.empty() && is_official_api(c.base_url, "api.anthropic.com"))
      return Error::bad_input(
          "the anthropic agent needs a key for api.anthropic.com: set ANTHROPIC_API_KEY (or "
          "ANTHROPIC_BASE_URL for a local server)");
    return make_anthropic_provider(std::move(c));
  }
  return Error::bad_input("unknown agent '" + config.name +
                          "': use tuner, openai, anthropic or command");
}

}  // namespace kgate
