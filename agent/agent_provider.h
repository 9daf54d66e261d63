#pragma once
// Something that answers AgentRequests: the built-in tuner, a chat model
// (OpenAI-compatible or Anthropic), or an external command. The episode
// treats every provider alike: text in, text out, parsed and gated.
#include <memory>
#include <string>

#include "agent/agent_request.h"
#include "core/status.h"

namespace kgate {

class AgentProvider {
 public:
  virtual ~AgentProvider() = default;
  virtual std::string name() const = 0;
  // The answer's text. An Error when no answer could be had (network,
  // authentication, a command that failed or timed out); an answer without
  // usable code is not an Error, the episode judges it.
  virtual Result<std::string> ask(const AgentRequest& request) = 0;
};

struct ProviderConfig {
  std::string name = "tuner";  // tuner, openai, anthropic, command
  std::string command;         // for "command" (run by /bin/sh -c); else KGATE_AGENT_COMMAND
  double command_timeout_s = 600;
  uint64_t seed = 1;
};

// Reads model, base URL and key from the environment for openai/anthropic
// (see docs/agent.md); a missing key is a bad-input error naming the variable.
Result<std::unique_ptr<AgentProvider>> make_provider(const ProviderConfig& config);

}  // namespace kgate
