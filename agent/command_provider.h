#pragma once
// Any other agent: a program run with `/bin/sh -c COMMAND`, the request as
// JSON on stdin ({"task", "system", "prompt", "context"}: AgentRequest::file_text,
// the same text a hand-off writes to its request file), the answer on
// stdout, under a time limit. A failing or hanging command is an Error.
#include <memory>
#include <string>

#include "agent/agent_provider.h"

namespace kgate {

std::unique_ptr<AgentProvider> make_command_provider(std::string command, double timeout_s);

}  // namespace kgate
