#include "agent/chat_provider.h"

#include <cctype>
#include <chrono>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "agent/agent_answer.h"
#include "core/log.h"
#include "core/number_format.h"
#include "core/redact.h"

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
  c.budget_s = env_number("KGATE_LLM_BUDGET_S", 1800);
}

// The episode's time on the model server: each call gets what is left as
// its deadline, and none starts once it is used.
class LlmBudget {
 public:
  explicit LlmBudget(double budget_s) : budget_s_(budget_s) {}
  // The deadline for the next call (0: none), or an Error once used.
  Result<double> next(const std::string& who) const {
    if (budget_s_ <= 0) return 0.0;
    const double left = budget_s_ - spent_s_;
    // A sliver left is used too: the transport would refuse it with a message that does not
    // name the budget (seen in CI: 0.000111 s left).
    if (left < kShortestRequestS)
      return Error::infrastructure(who + ": the episode's time with the model server (" +
                                   std::to_string(static_cast<long>(budget_s_)) +
                                   " s, KGATE_LLM_BUDGET_S) is used");
    return left;
  }
  void spend(double seconds) { spent_s_ += seconds; }

 private:
  double budget_s_;
  double spent_s_ = 0;
};

// Times one call against the budget.
// One model-server call through kgate's HTTP transport: a chat completion
// changes nothing on the server, so it is marked idempotent and a 5xx is
// asked again (core/retry_policy.h). The last response (any status) is the
// result; an Error when every attempt failed in transport.
Result<HttpResponse> post_with_retry(
    const std::string& url, const std::vector<std::pair<std::string, std::string>>& headers,
    const std::string& body, const HttpTimeouts& timeouts, const RetryPolicy& policy) {
  HttpRequest request{.method = "POST",
                      .url = url,
                      .headers = headers,
                      .body = body,
                      .timeouts = timeouts,
                      .user_agent = "kgate-agent",
                      .idempotent = true};
  HttpExchange exchange = send_with_retry(std::move(request), policy);
  if (!exchange.response.ok() && exchange.failure == HttpFailure::kTimedOut &&
      !policy.retry_timeouts)
    return Error::infrastructure(
        exchange.response.error().message + "; not retried: a server that does not answer within " +
        format_number(std::min(timeouts.total_s,
                               policy.deadline_s > 0 ? policy.deadline_s : timeouts.total_s)) +
        " s is hung or overloaded (KGATE_LLM_TIMEOUT_S sets the limit per request)");
  return exchange.response;
}

template <class F>
auto timed_call(LlmBudget& budget, F&& call) {
  const auto start = std::chrono::steady_clock::now();
  auto result = call();
  budget.spend(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return result;
}

std::string lower_ascii(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A 400 or 422 about the structured-output request itself: the server does
// not support `response_format` / JSON schemas (vLLM, llama.cpp and Ollama
// word it differently).
bool refuses_structured_output(const HttpResponse& r) {
  if (r.status != 400 && r.status != 422) return false;
  const std::string body = lower_ascii(r.body);
  for (const char* word : {"response_format", "json_schema", "schema", "format", "structured"})
    if (body.find(word) != std::string::npos) return true;
  return false;
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
  explicit OpenAiProvider(ChatConfig c) : c_(std::move(c)), budget_(c_.budget_s) {
    register_secret(c_.api_key);  // never in a log line or an error (core/redact.h)
  }
  std::string name() const override { return "openai"; }

  Result<std::string> ask(const AgentRequest& request) override {
    return ask_once(request, /*structured_retried=*/false);
  }

 private:
  Result<std::string> ask_once(const AgentRequest& request, bool structured_retried) {
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
    std::vector<std::pair<std::string, std::string>> headers = {
        {"Content-Type", "application/json"}};
    if (!c_.api_key.empty()) headers.push_back({"Authorization", "Bearer " + c_.api_key});
    std::string url = trim_slash(c_.base_url) + "/chat/completions";
    auto deadline = budget_.next("the OpenAI-compatible server at " + c_.base_url);
    if (!deadline.ok()) return deadline.error();
    RetryPolicy retry = c_.retry;
    retry.deadline_s = *deadline;
    auto response = timed_call(
        budget_, [&] { return post_with_retry(url, headers, body.dump(), c_.timeouts, retry); });
    if (!response.ok()) return response.error();
    if (structured && (response->status == 400 || response->status == 422)) {
      // A server without structured output says so in many ways; one that
      // fails the same request twice the same way is taken to mean it too.
      const bool same_again = structured_retried && response->status == last_refusal_status_ &&
                              response->body == last_refusal_body_;
      if (refuses_structured_output(*response) || same_again) {
        warn("the model server does not support structured output (HTTP " +
             std::to_string(response->status) + "); asking for text");
        structured_refused_ = true;
        return ask_once(request, false);
      }
      if (!structured_retried) {
        last_refusal_status_ = response->status;
        last_refusal_body_ = response->body;
        return ask_once(request, true);
      }
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
  LlmBudget budget_;
  bool structured_refused_ = false;
  long last_refusal_status_ = 0;
  std::string last_refusal_body_;
};

class AnthropicProvider : public AgentProvider {
 public:
  explicit AnthropicProvider(ChatConfig c) : c_(std::move(c)), budget_(c_.budget_s) {
    register_secret(c_.api_key);  // never in a log line or an error (core/redact.h)
  }
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
    std::vector<std::pair<std::string, std::string>> headers = {
        {"Content-Type", "application/json"}, {"anthropic-version", "2023-06-01"}};
    // A local server may take no key; the official API is refused one earlier.
    if (!c_.api_key.empty()) headers.push_back({"x-api-key", c_.api_key});
    std::string url = trim_slash(c_.base_url) + "/v1/messages";
    auto deadline = budget_.next("the Anthropic API at " + c_.base_url);
    if (!deadline.ok()) return deadline.error();
    RetryPolicy retry = c_.retry;
    retry.deadline_s = *deadline;
    auto response = timed_call(
        budget_, [&] { return post_with_retry(url, headers, body.dump(), c_.timeouts, retry); });
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
  LlmBudget budget_;
};

}  // namespace

bool is_official_api(const std::string& base_url, const std::string& host) {
  // scheme://host[:port]/...: compare the host exactly, not as a substring
  // (a local proxy's path may name the API).
  std::string rest = base_url;
  if (size_t p = rest.find("://"); p != std::string::npos) rest = rest.substr(p + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (size_t at = rest.rfind('@'); at != std::string::npos) rest = rest.substr(at + 1);
  rest = rest.substr(0, rest.find(':'));
  return lower_ascii(rest) == host;
}

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
