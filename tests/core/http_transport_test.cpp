// kgate's one HTTP transport and retry policy (core/http_transport.h,
// core/retry_policy.h) against a real cpp-httplib server on 127.0.0.1 that
// counts the requests it receives.
#include "core/http_transport.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <mutex>
#include <thread>

#include "core/redact.h"
#include "core/retry_policy.h"

namespace kgate {
namespace {

// Answers /x with the scripted statuses in order, then 200; counts every request.
class CountingServer {
 public:
  explicit CountingServer(std::deque<int> statuses) : statuses_(std::move(statuses)) {
    auto handler = [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard lock(mutex_);
      ++hits_;
      last_authorization_ = req.get_header_value("Authorization");
      res.status = 200;
      if (!statuses_.empty()) {
        res.status = statuses_.front();
        statuses_.pop_front();
      }
      res.set_content(R"({"n":)" + std::to_string(hits_) + "}", "application/json");
    };
    server_.Get("/x", handler);
    server_.Post("/x", handler);
    server_.Patch("/x", handler);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~CountingServer() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/x"; }
  int hits() {
    std::lock_guard lock(mutex_);
    return hits_;
  }

 private:
  httplib::Server server_;
  std::thread thread_;
  std::mutex mutex_;
  std::deque<int> statuses_;
  int hits_ = 0;
  std::string last_authorization_;
  int port_ = 0;
};

// A port on 127.0.0.1 nothing listens on: connecting is refused.
int refused_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

struct Recorded {
  std::vector<double> waits;
  std::vector<std::string> lines;
  RetryHooks hooks() {
    RetryHooks h;
    h.sleep = [this](double s) { waits.push_back(s); };
    h.on_retry = [this](const std::string& line) { lines.push_back(line); };
    return h;
  }
};

TEST(HttpTransportTest, APostAnswered502IsNotSentTwice) {
  CountingServer server({502});
  Recorded r;
  HttpExchange e = send_with_retry({.method = "POST", .url = server.url(), .body = "{}"},
                                   RetryPolicy{}, r.hooks());
  ASSERT_TRUE(e.response.ok()) << e.response.error().message;
  EXPECT_EQ(e.response->status, 502);
  EXPECT_EQ(server.hits(), 1);
  EXPECT_EQ(e.attempts, 1);
  EXPECT_TRUE(r.waits.empty());
}

TEST(HttpTransportTest, APatchAnswered503IsNotSentTwice) {
  CountingServer server({503});
  Recorded r;
  HttpExchange e = send_with_retry({.method = "PATCH", .url = server.url(), .body = "{}"},
                                   RetryPolicy{}, r.hooks());
  ASSERT_TRUE(e.response.ok());
  EXPECT_EQ(e.response->status, 503);
  EXPECT_EQ(server.hits(), 1);
}

TEST(HttpTransportTest, AGetAnswered502IsSentAgainAfterABackoff) {
  CountingServer server({502, 503});
  Recorded r;
  HttpExchange e = send_with_retry({.url = server.url()}, RetryPolicy{}, r.hooks());
  ASSERT_TRUE(e.response.ok());
  EXPECT_EQ(e.response->status, 200);
  EXPECT_EQ(server.hits(), 3);
  ASSERT_EQ(r.waits.size(), 2u);
  EXPECT_GE(r.waits[0], 0.5);  // 1 s, jittered down to half at most
  EXPECT_LE(r.waits[0], 1);
  EXPECT_GE(r.waits[1], 1);
  EXPECT_LE(r.waits[1], 2);
}

TEST(HttpTransportTest, APostTheCallerMarksIdempotentIsSentAgain) {
  CountingServer server({502});
  Recorded r;
  HttpExchange e =
      send_with_retry({.method = "POST", .url = server.url(), .body = "{}", .idempotent = true},
                      RetryPolicy{}, r.hooks());
  ASSERT_TRUE(e.response.ok());
  EXPECT_EQ(e.response->status, 200);
  EXPECT_EQ(server.hits(), 2);
}

TEST(HttpTransportTest, APostThatNeverLeftIsSentAgain) {
  Recorded r;
  RetryPolicy policy;
  policy.max_attempts = 3;
  HttpExchange e = send_with_retry(
      {.method = "POST", .url = "http://127.0.0.1:" + std::to_string(refused_port()) + "/x"},
      policy, r.hooks());
  ASSERT_FALSE(e.response.ok());
  EXPECT_EQ(e.failure, HttpFailure::kNotSent);
  EXPECT_EQ(e.attempts, 3);
  EXPECT_EQ(r.waits.size(), 2u);
  EXPECT_NE(e.gave_up.find("gave up after 3 attempts"), std::string::npos) << e.gave_up;
}

TEST(HttpTransportTest, A429IsSentAgainEvenForAPostAfterItsRetryAfter) {
  CountingServer server({429});
  Recorded r;
  HttpExchange e = send_with_retry({.method = "POST", .url = server.url(), .body = "{}"},
                                   RetryPolicy{}, r.hooks());
  ASSERT_TRUE(e.response.ok());
  EXPECT_EQ(server.hits(), 2);  // a 429 is a request the server did not act on
}

TEST(HttpTransportTest, SecretsNeverReachErrorsOrProgressLines) {
  Recorded r;
  RetryPolicy policy;
  policy.max_attempts = 2;
  const std::string port = std::to_string(refused_port());
  HttpExchange e =
      send_with_retry({.method = "GET",
                       .url = "http://kgate:url-password-1234@127.0.0.1:" + port + "/x?x=1",
                       .headers = {{"Authorization", "Bearer sk-never-shown-5678"}}},
                      policy, r.hooks());
  ASSERT_FALSE(e.response.ok());
  std::string all = e.response.error().message + e.gave_up;
  for (const std::string& line : r.lines) all += line;
  EXPECT_EQ(all.find("url-password-1234"), std::string::npos) << all;
  EXPECT_EQ(redact("the key was sk-never-shown-5678"), "the key was ***");
  EXPECT_EQ(redact("Authorization: Bearer sk-never-shown-5678"), "Authorization: ***");
  EXPECT_EQ(redact("https://x-access-token:ghs_unregistered@github.com/o/r.git"),
            "https://x-access-token:***@github.com/o/r.git");
}

TEST(HttpTransportTest, UrlEscapeLeavesOnlyUnreservedCharacters) {
  EXPECT_EQ(url_escape("kgate"), "kgate");
  EXPECT_EQ(url_escape("kgate / H100 gate"), "kgate%20%2F%20H100%20gate");
  EXPECT_EQ(url_escape("a&b=c?d#e+f%"), "a%26b%3Dc%3Fd%23e%2Bf%25");
  EXPECT_EQ(url_escape("-._~"), "-._~");
  EXPECT_EQ(url_escape("\xc3\xa9"), "%C3%A9");
  EXPECT_EQ(url_escape(""), "");
}

TEST(RetryPolicyTest, RetryAfterIsSecondsOrAnHttpDate) {
  EXPECT_DOUBLE_EQ(parse_retry_after("3"), 3);
  EXPECT_LT(parse_retry_after(""), 0);
  EXPECT_LT(parse_retry_after("soon"), 0);
  EXPECT_DOUBLE_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", 1445412480 - 30), 30);
  EXPECT_DOUBLE_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", 1445412480 + 30), 0);
}

TEST(RetryPolicyTest, WaitsForARateLimitResetAndRefusesLongOnes) {
  std::mt19937_64 rng(1);
  RetryPolicy policy;
  HttpResponse limited;
  limited.status = 403;
  limited.headers = {{"x-ratelimit-remaining", "0"}, {"x-ratelimit-reset", "1000042"}};
  RetryDecision d =
      decide_retry({.method = "POST"}, limited, HttpFailure::kNone, 1, policy, 1000000, rng);
  EXPECT_TRUE(d.retry);
  EXPECT_DOUBLE_EQ(d.wait_s, 43);
  limited.headers["x-ratelimit-reset"] = "1003000";
  d = decide_retry({.method = "GET"}, limited, HttpFailure::kNone, 1, policy, 1000000, rng);
  EXPECT_FALSE(d.retry);
  EXPECT_NE(d.reason.find("resets in 3001 s"), std::string::npos) << d.reason;
  HttpResponse forbidden;
  forbidden.status = 403;
  EXPECT_FALSE(
      decide_retry({.method = "GET"}, forbidden, HttpFailure::kNone, 1, policy, 1000000, rng)
          .retry);
}

TEST(RetryPolicyTest, BackoffIsExponentialCappedAndJittered) {
  std::mt19937_64 rng(7);
  EXPECT_DOUBLE_EQ(backoff_delay(10, 600, 1, 0.5, nullptr), 10);
  EXPECT_DOUBLE_EQ(backoff_delay(10, 600, 3, 0.5, nullptr), 40);
  EXPECT_DOUBLE_EQ(backoff_delay(10, 600, 12, 0.5, nullptr), 600);
  bool varied = false;
  double first = backoff_delay(10, 600, 2, 0.5, &rng);
  for (int i = 0; i < 20; ++i) {
    double d = backoff_delay(10, 600, 2, 0.5, &rng);
    EXPECT_GE(d, 10);
    EXPECT_LE(d, 20);
    varied |= d != first;
  }
  EXPECT_TRUE(varied);
}

}  // namespace
}  // namespace kgate
