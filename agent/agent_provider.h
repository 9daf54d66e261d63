#pragma once
// Something that answers AgentRequests: the built-in tuner, a chat model
// (OpenAI-compatible or Anthropic), or an external command. The episode
// treats every provider alike: text in, text out, parsed and gated.
#include <filesystem>
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
  // Whether the episode keeps this provider's requests and answers as files
  // (turn_journal.h); the built-in tuner's are not worth the disk.
  virtual bool records_turns() const { return true; }
  // Whether answers come later, as files (handoff_provider.h): a failed ask
  // then leaves the episode waiting at that turn, to continue there, instead
  // of ending the run with the turn dropped.
  virtual bool answers_later() const { return false; }
};

struct ProviderConfig {
  std::string name = "tuner";  // tuner, openai, anthropic, command, handoff, replay
  std::string command;         // for "command" (run by /bin/sh -c); else KGATE_AGENT_COMMAND
  double command_timeout_s = 600;
  std::filesystem::path answers;  // for "replay": a folder of recorded turns
  uint64_t seed = 1;
};

// Reads model, base URL and key from the environment for openai/anthropic
// (see docs/agent.md); a missing key is a bad-input error naming the variable.
Result<std::unique_ptr<AgentProvider>> make_provider(const ProviderConfig& config);

}  // namespace kgate
