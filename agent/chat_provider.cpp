#include "agent/chat_provider.h"

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "agent/agent_answer.h"
#include "core/log.h"

namespace kgate {
namespace {

std::string env(const char* name, const std::string& fallback = "") {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

double env_number(const char* name, double fallback) {
  std::string v = env(name);
  if (v.empty()) return fallback;
  char* end = nullptr;
  double d = std::strtod(v.c_str(), &end);
  return end && *end == '\0' && d > 0 ? d : fallback;
}

void common_from_env(ChatConfig& c) {
  c.timeouts.connect_s = env_number("KGATE_LLM_CONNECT_TIMEOUT_S", 10);
  c.timeouts.total_s = env_number("KGATE_LLM_TIMEOUT_S", 300);
  c.retry.max_attempts = static_cast<int>(env_number("KGATE_LLM_MAX_ATTEMPTS", 5));
}

std::string trim_slash(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

std::string body_excerpt(const std::string& body) {
  std::string s = body.substr(0, 400);
  for (char& c : s)
    if (c == '\n') c = ' ';
  return s;
}

// The server's own error message, when the body carries one.
std::string server_message(const std::string& body) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (!j.is_discarded() && j.is_object() && j.contains("error")) {
    const auto& e = j["error"];
    if (e.is_object() && e.contains("message") && e["message"].is_string()) return e["message"];
    if (e.is_string()) return e;
  }
  return body_excerpt(body);
}

Error status_error(const std::string& who, long status, const std::string& body,
                   const std::string& key_var) {
  std::string msg = server_message(body);
  if (status == 401 || status == 403)
    return Error::bad_input(who + " refused the credentials (HTTP " + std::to_string(status) +
                            "): " + msg + "; check " + key_var);
  if (status >= 400 && status < 500 && status != 408 && status != 409 && status != 429)
    return Error::bad_input(who + " rejected the request (HTTP " + std::to_string(status) +
                            "): " + msg);
  return Error::infrastructure(who + " kept failing (HTTP " + std::to_string(status) +
                               " after retries): " + msg);
}

class OpenAiProvider : public AgentProvider {
 public:
  explicit OpenAiProvider(ChatConfig c) : c_(std::move(c)) {}
  std::string name() const override { return "openai"; }

  Result<std::string> ask(const AgentRequest& request) override {
    nlohmann::json body = {{"model", c_.model},
                           {"messages",
                            {{{"role", "system"}, {"content", request.system}},
                             {{"role", "user"}, {"content", request.prompt}}}},
                           {"temperature", c_.temperature},
                           {"max_tokens", c_.max_tokens}};
    bool structured = request.structured_answer && c_.structured_output && !structured_refused_;
    if (structured)
      body["response_format"] = {
          {"type", "json_schema"},
          {"json_schema",
           {{"name", "kernel_candidate"}, {"schema", agent_answer_schema()}, {"strict", false}}}};
    std::vector<std::string> headers = {"Content-Type: application/json"};
    if (!c_.api_key.empty()) headers.push_back("Authorization: Bearer " + c_.api_key);
    std::string url = trim_slash(c_.base_url) + "/chat/completions";
    auto response = post_with_retry(url, headers, body.dump(), c_.timeouts, c_.retry);
    if (!response.ok()) return response.error();
    if (response->status == 400 && structured &&
        response->body.find("response_format") != std::string::npos) {
      // The server does not do structured output: ask in text, validate locally.
      warn("the model server does not support structured output; asking for text");
      structured_refused_ = true;
      return ask(request);
    }
    if (response->status != 200)
      return status_error("the OpenAI-compatible server at " + c_.base_url, response->status,
                          response->body, "OPENAI_API_KEY");
    auto j = nlohmann::json::parse(response->body, nullptr, false);
    if (j.is_discarded())
      return Error::infrastructure("the model server answered malformed JSON: " +
                                   body_excerpt(response->body));
    try {
      const auto& message = j.at("choices").at(0).at("message");
      if (message.contains("content") && message["content"].is_string())
        return message["content"].get<std::string>();
      if (message.contains("refusal") && message["refusal"].is_string())
        return Error::infrastructure("the model refused: " + message["refusal"].get<std::string>());
    } catch (const nlohmann::json::exception&) {
    }
    return Error::infrastructure("the model server's answer has no choices[0].message.content: " +
                                 body_excerpt(response->body));
  }

 private:
  ChatConfig c_;
  bool structured_refused_ = false;
};

class AnthropicProvider : public AgentProvider {
 public:
  explicit AnthropicProvider(ChatConfig c) : c_(std::move(c)) {}
  std::string name() const override { return "anthropic"; }

  Result<std::string> ask(const AgentRequest& request) override {
    std::string prompt = request.prompt;
    if (request.structured_answer)
      prompt +=
          "\nYou may answer with one JSON object matching this schema instead of the text form: " +
          agent_answer_schema().dump();
    nlohmann::json body = {{"model", c_.model},
                           {"max_tokens", c_.max_tokens},
                           {"temperature", c_.temperature},
                           {"system", request.system},
                           {"messages", {{{"role", "user"}, {"content", prompt}}}}};
    std::vector<std::string> headers = {"Content-Type: application/json",
                                        "x-api-key: " + c_.api_key,
                                        "anthropic-version: 2023-06-01"};
    std::string url = trim_slash(c_.base_url) + "/v1/messages";
    auto response = post_with_retry(url, headers, body.dump(), c_.timeouts, c_.retry);
    if (!response.ok()) return response.error();
    if (response->status != 200)
      return status_error("the Anthropic API at " + c_.base_url, response->status, response->body,
                          "ANTHROPIC_API_KEY");
    auto j = nlohmann::json::parse(response->body, nullptr, false);
    if (j.is_discarded())
      return Error::infrastructure("the Anthropic API answered malformed JSON: " +
                                   body_excerpt(response->body));
    if (!j.is_object() || !j.contains("content") || !j["content"].is_array())
      return Error::infrastructure("the Anthropic answer has no content: " +
                                   body_excerpt(response->body));
    std::string text;
    for (const auto& block : j["content"])
      if (block.is_object() && block.value("type", "") == "text" && block.contains("text") &&
          block["text"].is_string())
        text += block["text"].get<std::string>();
    if (text.empty())
      return Error::infrastructure("the Anthropic answer has no text block: " +
                                   body_excerpt(response->body));
    if (j.value("stop_reason", "") == "max_tokens")
      warn("the model's answer was cut at max_tokens");
    return text;
  }

 private:
  ChatConfig c_;
};

}  // namespace

ChatConfig openai_config_from_env() {
  ChatConfig c;
  c.base_url = env("KGATE_OPENAI_BASE_URL", env("OPENAI_BASE_URL", "https://api.openai.com/v1"));
  c.model = env("KGATE_OPENAI_MODEL", env("OPENAI_MODEL", "gpt-4.1"));
  c.api_key = env("KGATE_OPENAI_API_KEY", env("OPENAI_API_KEY"));
  common_from_env(c);
  return c;
}

ChatConfig anthropic_config_from_env() {
  ChatConfig c;
  c.base_url = env("ANTHROPIC_BASE_URL", "https://api.anthropic.com");
  c.model = env("KGATE_ANTHROPIC_MODEL", "claude-sonnet-4-5");
  c.api_key = env("KGATE_ANTHROPIC_API_KEY", env("ANTHROPIC_API_KEY"));
  common_from_env(c);
  return c;
}

std::unique_ptr<AgentProvider> make_openai_provider(ChatConfig config) {
  return std::make_unique<OpenAiProvider>(std::move(config));
}
std::unique_ptr<AgentProvider> make_anthropic_provider(ChatConfig config) {
  return std::make_unique<AnthropicProvider>(std::move(config));
}

}  // namespace kgate
