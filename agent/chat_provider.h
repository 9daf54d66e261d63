#pragma once
// Chat-model providers over HTTP: OpenAI-compatible Chat Completions
// (OpenAI, vLLM, llama.cpp server, Ollama) and the Anthropic Messages API.
// Both send through core/http_transport.h, retry per core/retry_policy.h
// (a completion is marked idempotent) and turn every non-answer into an Error that
// says what to fix (401: the key; 400: the request; timeouts: the server).
#include <memory>
#include <string>

#include "agent/agent_provider.h"
#include "core/http_transport.h"
#include "core/retry_policy.h"

namespace kgate {

struct ChatConfig {
  std::string base_url;  // openai: ".../v1"; anthropic: "https://api.anthropic.com"
  std::string model;
  std::string api_key;  // openai: may be empty for local servers
  HttpTimeouts timeouts{.connect_s = 10, .total_s = 300};
  RetryPolicy retry;
  // Wall time the provider may spend on the model server over all its calls
  // (one episode: the provider is made per episode), retries and waits
  // included; once used, every call fails at once. <= 0: no budget.
  double budget_s = 1800;
  int max_tokens = 8192;
  double temperature = 0.2;
  bool structured_output = true;  // openai: response_format json_schema where accepted
};

// OPENAI_BASE_URL / KGATE_OPENAI_BASE_URL, KGATE_OPENAI_MODEL / OPENAI_MODEL,
// KGATE_OPENAI_API_KEY / OPENAI_API_KEY; timeouts, attempts and the budget
// from KGATE_LLM_CONNECT_TIMEOUT_S (10), KGATE_LLM_TIMEOUT_S (300, per
// request), KGATE_LLM_MAX_ATTEMPTS (5), KGATE_LLM_BUDGET_S (1800, per episode).
ChatConfig openai_config_from_env();
// ANTHROPIC_BASE_URL, KGATE_ANTHROPIC_MODEL, ANTHROPIC_API_KEY, same timeouts.
ChatConfig anthropic_config_from_env();

// Whether `base_url` is the official API of the provider ("api.openai.com",
// "api.anthropic.com"), where a key is required; a local or self-hosted
// server may need none.
bool is_official_api(const std::string& base_url, const std::string& host);

std::unique_ptr<AgentProvider> make_openai_provider(ChatConfig config);
std::unique_ptr<AgentProvider> make_anthropic_provider(ChatConfig config);

}  // namespace kgate
