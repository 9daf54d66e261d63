#pragma once
// Chat-model providers over HTTP: OpenAI-compatible Chat Completions
// (OpenAI, vLLM, llama.cpp server, Ollama) and the Anthropic Messages API.
// Both retry per retry_policy.h and turn every non-answer into an Error that
// says what to fix (401: the key; 400: the request; timeouts: the server).
#include <memory>
#include <string>

#include "agent/agent_provider.h"
#include "agent/retry_policy.h"

namespace kgate {

struct ChatConfig {
  std::string base_url;  // openai: ".../v1"; anthropic: "https://api.anthropic.com"
  std::string model;
  std::string api_key;  // openai: may be empty for local servers
  HttpTimeouts timeouts;
  RetryPolicy retry;
  int max_tokens = 8192;
  double temperature = 0.2;
  bool structured_output = true;  // openai: response_format json_schema where accepted
};

// OPENAI_BASE_URL / KGATE_OPENAI_BASE_URL, KGATE_OPENAI_MODEL / OPENAI_MODEL,
// KGATE_OPENAI_API_KEY / OPENAI_API_KEY; timeouts and attempts from
// KGATE_LLM_CONNECT_TIMEOUT_S, KGATE_LLM_TIMEOUT_S, KGATE_LLM_MAX_ATTEMPTS.
ChatConfig openai_config_from_env();
// ANTHROPIC_BASE_URL, KGATE_ANTHROPIC_MODEL, ANTHROPIC_API_KEY, same timeouts.
ChatConfig anthropic_config_from_env();

std::unique_ptr<AgentProvider> make_openai_provider(ChatConfig config);
std::unique_ptr<AgentProvider> make_anthropic_provider(ChatConfig config);

}  // namespace kgate
