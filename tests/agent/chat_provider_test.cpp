// The openai and anthropic clients against real HTTP servers on 127.0.0.1
// that speak each protocol: success, 429 with retry-after, 500 then success,
// 401, malformed JSON, and a server that never answers.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "agent/agent_provider.h"
#include "agent/chat_provider.h"

namespace kgate {
namespace {

using Clock = std::chrono::steady_clock;

// A scripted model server: answers request N with script[N] (the last entry repeats).
struct Reply {
  int status;
  std::string body;
  std::string retry_after;
};

class ModelServer {
 public:
  explicit ModelServer(std::vector<Reply> script) : script_(std::move(script)) {
    auto handler = [this](const httplib::Request& req, httplib::Response& res) {
      int n = calls_++;
      last_body_ = req.body;
      last_auth_ = req.get_header_value("Authorization");
      last_api_key_ = req.get_header_value("x-api-key");
      last_version_ = req.get_header_value("anthropic-version");
      const Reply& r = script_[std::min<size_t>(n, script_.size() - 1)];
      res.status = r.status;
      if (!r.retry_after.empty()) res.set_header("retry-after", r.retry_after);
      res.set_content(r.body, "application/json");
    };
    server_.Post("/v1/chat/completions", handler);
    server_.Post("/v1/messages", handler);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ~ModelServer() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int calls() const { return calls_; }
  std::string last_body_, last_auth_, last_api_key_, last_version_;

 private:
  std::vector<Reply> script_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<int> calls_{0};
};

// Accepts connections into its backlog and never answers.
class SilentServer {
 public:
  SilentServer() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    listen(fd_, 16);
    socklen_t len = sizeof a;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
  }
  ~SilentServer() { close(fd_); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_ = -1;
  int port_ = 0;
};

std::string openai_ok(const std::string& content) {
  return nlohmann::json{{"id", "x"},
                        {"object", "chat.completion"},
                        {"choices",
                         {{{"index", 0},
                           {"message", {{"role", "assistant"}, {"content", content}}},
                           {"finish_reason", "stop"}}}}}
      .dump();
}

std::string anthropic_ok(const std::string& text) {
  return nlohmann::json{{"id", "msg_1"},
                        {"type", "message"},
                        {"role", "assistant"},
                        {"content", {{{"type", "text"}, {"text", text}}}},
                        {"stop_reason", "end_turn"}}
      .dump();
}

ChatConfig config_for(const std::string& base, bool anthropic) {
  ChatConfig c;
  c.base_url = anthropic ? base : base + "/v1";
  c.model = "test-model";
  c.api_key = "sk-test";
  c.timeouts.connect_s = 2;
  c.timeouts.total_s = 5;
  c.retry.max_attempts = 3;
  c.retry.base_delay_s = 0.05;
  c.retry.max_delay_s = 5;
  return c;
}

AgentRequest request() {
  AgentRequest r;
  r.system = "system text";
  r.prompt = "prompt text";
  r.structured_answer = true;
  return r;
}

class ChatProviderTest : public ::testing::TestWithParam<bool> {
 protected:
  bool anthropic() const { return GetParam(); }
  std::string ok_body(const std::string& text) const {
    return anthropic() ? anthropic_ok(text) : openai_ok(text);
  }
  std::unique_ptr<AgentProvider> provider(const std::string& base) const {
    return anthropic() ? make_anthropic_provider(config_for(base, true))
                       : make_openai_provider(config_for(base, false));
  }
};

TEST_P(ChatProviderTest, SuccessSendsTheProtocolsRequest) {
  ModelServer server({{200, ok_body("BOTTLENECK: x.\n```cpp\nint f();\n```"), ""}});
  auto answer = provider(server.url())->ask(request());
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  EXPECT_NE(answer->find("int f();"), std::string::npos);
  EXPECT_EQ(server.calls(), 1);
  auto body = nlohmann::json::parse(server.last_body_);
  EXPECT_EQ(body["model"], "test-model");
  if (anthropic()) {
    EXPECT_EQ(server.last_api_key_, "sk-test");
    EXPECT_EQ(server.last_version_, "2023-06-01");
    EXPECT_EQ(body["system"], "system text");
    EXPECT_EQ(body["messages"][0]["role"], "user");
    EXPECT_TRUE(body.contains("max_tokens"));
  } else {
    EXPECT_EQ(server.last_auth_, "Bearer sk-test");
    EXPECT_EQ(body["messages"][0]["role"], "system");
    EXPECT_EQ(body["messages"][1]["content"], "prompt text");
    EXPECT_EQ(body["response_format"]["type"], "json_schema");
  }
}

TEST_P(ChatProviderTest, RetriesA429AfterTheServersRetryAfter) {
  ModelServer server(
      {{429, R"({"error":{"message":"slow down"}})", "1"}, {200, ok_body("done"), ""}});
  auto start = Clock::now();
  auto answer = provider(server.url())->ask(request());
  double waited = std::chrono::duration<double>(Clock::now() - start).count();
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  EXPECT_EQ(*answer, "done");
  EXPECT_EQ(server.calls(), 2);
  EXPECT_GE(waited, 0.95) << "retry-after: 1 must be honoured";
}

TEST_P(ChatProviderTest, RetriesA500ThenSucceeds) {
  ModelServer server({{500, R"({"error":{"message":"boom"}})", ""}, {200, ok_body("fine"), ""}});
  auto answer = provider(server.url())->ask(request());
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  EXPECT_EQ(*answer, "fine");
  EXPECT_EQ(server.calls(), 2);
}

TEST_P(ChatProviderTest, Overloaded529IsRetried) {
  ModelServer server(
      {{529, R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})", ""},
       {200, ok_body("ok"), ""}});
  auto answer = provider(server.url())->ask(request());
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  EXPECT_EQ(server.calls(), 2);
}

TEST_P(ChatProviderTest, Unauthorized401IsNotRetriedAndNamesTheKey) {
  ModelServer server({{401, R"({"error":{"message":"invalid api key"}})", ""}});
  auto answer = provider(server.url())->ask(request());
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(server.calls(), 1);
  EXPECT_NE(answer.error().message.find("invalid api key"), std::string::npos)
      << answer.error().message;
  EXPECT_NE(answer.error().message.find(anthropic() ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY"),
            std::string::npos);
}

TEST_P(ChatProviderTest, MalformedJsonIsAnErrorNotACrash) {
  ModelServer server({{200, "{\"choices\": [ this is not json", ""}});
  auto answer = provider(server.url())->ask(request());
  ASSERT_FALSE(answer.ok());
  EXPECT_NE(answer.error().message.find("malformed JSON"), std::string::npos)
      << answer.error().message;
  EXPECT_EQ(server.calls(), 1);
}

TEST_P(ChatProviderTest, PersistentServerErrorsGiveUpAfterTheAttempts) {
  ModelServer server({{503, "{}", ""}});
  auto answer = provider(server.url())->ask(request());
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(server.calls(), 3);
  EXPECT_EQ(answer.error().kind, ExitCode::kInfrastructure);
}

TEST_P(ChatProviderTest, AServerThatNeverAnswersTimesOut) {
  SilentServer silent;
  ChatConfig c = config_for(silent.url(), anthropic());
  c.timeouts.total_s = 0.5;
  c.retry.max_attempts = 2;
  c.retry.retry_timeouts = true;  // the old behaviour, still bounded by the timeouts
  auto p = anthropic() ? make_anthropic_provider(c) : make_openai_provider(c);
  auto start = Clock::now();
  auto answer = p->ask(request());
  double took = std::chrono::duration<double>(Clock::now() - start).count();
  ASSERT_FALSE(answer.ok());
  EXPECT_NE(answer.error().message.find("imed out"), std::string::npos) << answer.error().message;
  EXPECT_LT(took, 5.0);
}

INSTANTIATE_TEST_SUITE_P(Protocols, ChatProviderTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("Anthropic") : std::string("OpenAI");
                         });

TEST(OpenAiProvider, FallsBackToTextWhenStructuredOutputIsRefused) {
  ModelServer server(
      {{400, R"({"error":{"message":"response_format json_schema is not supported"}})", ""},
       {200, openai_ok("plain"), ""}});
  auto answer = make_openai_provider(config_for(server.url(), false))->ask(request());
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  EXPECT_EQ(server.calls(), 2);
  EXPECT_FALSE(nlohmann::json::parse(server.last_body_).contains("response_format"));
}

// Servers word "no structured output" in many ways: a 422 that names the
// schema is enough.
TEST(OpenAiProvider, FallsBackOnA422ThatNamesTheSchema) {
  ModelServer server({{422, R"({"detail":"Unsupported: guided decoding with a JSON schema"})", ""},
                      {200, openai_ok("plain"), ""}});
  auto answer = make_openai_provider(config_for(server.url(), false))->ask(request());
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  EXPECT_EQ(*answer, "plain");
  EXPECT_EQ(server.calls(), 2);
  EXPECT_FALSE(nlohmann::json::parse(server.last_body_).contains("response_format"));
}

// A 400 that names nothing: the structured request is tried once more, and
// the same failure twice means the server cannot do it.
TEST(OpenAiProvider, FallsBackAfterASecondIdenticalFailure) {
  ModelServer server({{400, R"({"error":{"message":"bad request"}})", ""},
                      {400, R"({"error":{"message":"bad request"}})", ""},
                      {200, openai_ok("plain"), ""}});
  auto provider = make_openai_provider(config_for(server.url(), false));
  auto answer = provider->ask(request());
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  EXPECT_EQ(server.calls(), 3);
  EXPECT_FALSE(nlohmann::json::parse(server.last_body_).contains("response_format"));
  // The next request asks in text from the start.
  auto again = provider->ask(request());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(server.calls(), 4);
}

// Two different 400s: a real error in the request, reported, not hidden by a fallback.
TEST(OpenAiProvider, ADifferentSecondFailureIsReported) {
  ModelServer server({{400, R"({"error":{"message":"bad request one"}})", ""},
                      {400, R"({"error":{"message":"bad request two"}})", ""},
                      {200, openai_ok("plain"), ""}});
  auto answer = make_openai_provider(config_for(server.url(), false))->ask(request());
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(server.calls(), 2);
  EXPECT_NE(answer.error().message.find("bad request two"), std::string::npos)
      << answer.error().message;
}

// A local Anthropic-compatible server needs no key; the official API does.
TEST(AnthropicProvider, ALocalServerNeedsNoKey) {
  ModelServer server({{200, anthropic_ok("local answer"), ""}});
  ChatConfig c = config_for(server.url(), true);
  c.api_key.clear();
  auto answer = make_anthropic_provider(c)->ask(request());
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  EXPECT_EQ(*answer, "local answer");
  EXPECT_TRUE(server.last_api_key_.empty());

  unsetenv("ANTHROPIC_API_KEY");
  unsetenv("KGATE_ANTHROPIC_API_KEY");
  setenv("ANTHROPIC_BASE_URL", server.url().c_str(), 1);
  ProviderConfig pc;
  pc.name = "anthropic";
  EXPECT_TRUE(make_provider(pc).ok());
  setenv("ANTHROPIC_BASE_URL", "https://api.anthropic.com", 1);
  auto official = make_provider(pc);
  ASSERT_FALSE(official.ok());
  EXPECT_NE(official.error().message.find("ANTHROPIC_API_KEY"), std::string::npos);
  unsetenv("ANTHROPIC_BASE_URL");
  EXPECT_TRUE(is_official_api("https://api.anthropic.com/", "api.anthropic.com"));
  EXPECT_TRUE(is_official_api("https://API.anthropic.com:443/v1", "api.anthropic.com"));
  EXPECT_FALSE(is_official_api("http://127.0.0.1:8080/api.anthropic.com", "api.anthropic.com"));
  EXPECT_FALSE(is_official_api("https://api.anthropic.com.evil.example", "api.anthropic.com"));
}

// A server that never answers costs one request timeout, not one per attempt,
// and the episode's budget bounds every call after it.
TEST_P(ChatProviderTest, AHungServerIsNotRetriedAndTheBudgetBoundsTheEpisode) {
  SilentServer silent;
  ChatConfig c = config_for(silent.url(), anthropic());
  c.timeouts.total_s = 0.6;
  c.retry.max_attempts = 5;
  c.budget_s = 1.0;
  auto p = anthropic() ? make_anthropic_provider(c) : make_openai_provider(c);
  auto start = Clock::now();
  auto answer = p->ask(request());
  double took = std::chrono::duration<double>(Clock::now() - start).count();
  ASSERT_FALSE(answer.ok());
  EXPECT_NE(answer.error().message.find("not retried"), std::string::npos)
      << answer.error().message;
  EXPECT_LT(took, 1.5) << "five attempts would take 3 s";
  // The second call has 0.4 s left of the budget; the third none.
  start = Clock::now();
  EXPECT_FALSE(p->ask(request()).ok());
  auto third = p->ask(request());
  took = std::chrono::duration<double>(Clock::now() - start).count();
  ASSERT_FALSE(third.ok());
  EXPECT_NE(third.error().message.find("KGATE_LLM_BUDGET_S"), std::string::npos)
      << third.error().message;
  EXPECT_LT(took, 1.0);
}

// What a model server's answers mean to the providers' policy: a completion
// is marked idempotent, so 408, 409, 429 and 5xx are asked again, other 4xx
// are not, and a retry-after is a minimum.
TEST(RetryPolicy, KnowsWhatToRetryForACompletion) {
  HttpRequest completion{.method = "POST", .idempotent = true};
  RetryPolicy p;
  p.base_delay_s = 1;
  p.max_delay_s = 10;
  std::mt19937_64 rng(1);
  auto decide = [&](int status, std::string retry_after = "") {
    HttpResponse r;
    r.status = status;
    if (!retry_after.empty()) r.headers["retry-after"] = retry_after;
    return decide_retry(completion, r, HttpFailure::kNone, 1, p, 0, rng);
  };
  for (int s : {408, 409, 429, 500, 502, 503, 529}) EXPECT_TRUE(decide(s).retry) << s;
  for (int s : {200, 400, 401, 403, 404, 422}) EXPECT_FALSE(decide(s).retry) << s;
  EXPECT_GE(decide(429, "7").wait_s, 7);
  for (int attempt = 1; attempt < 7; ++attempt) {
    double d = backoff_delay(p.base_delay_s, p.max_delay_s, attempt, p.jitter, &rng);
    EXPECT_GE(d, 0.5 * std::min(10.0, std::pow(2.0, attempt - 1)));
    EXPECT_LE(d, std::min(10.0, std::pow(2.0, attempt - 1)));
  }
}

}  // namespace
}  // namespace kgate
