// The strict request-head check on its own: each framing a server behind a
// proxy must refuse (RFC 9112), and the heads it must take as they are.
#include "webhooks/request_head.h"

#include <gtest/gtest.h>

namespace kgate::webhooks {
namespace {

const HeadLimits kLimits;

std::variant<RequestHead, HeadRefusal> check(const std::string& head) {
  return check_request_head(head, kLimits);
}

int status_of(const std::variant<RequestHead, HeadRefusal>& checked) {
  const auto* refused = std::get_if<HeadRefusal>(&checked);
  return refused ? refused->status : 0;
}

const std::string kPost = "POST /webhook HTTP/1.1\r\nHost: kgate.example:8080\r\n";

TEST(RequestHead, AcceptsWhatGitHubSends) {
  std::string head = kPost +
                     "Content-Type: application/json\r\nX-GitHub-Event: ping\r\n"
                     "X-Hub-Signature-256: sha256=00ff\r\nUser-Agent: GitHub-Hookshot/1\r\n"
                     "Content-Length:   23741 \r\n\r\n";
  auto checked = check(head);
  ASSERT_EQ(status_of(checked), 0) << std::get<HeadRefusal>(checked).message;
  const RequestHead& h = std::get<RequestHead>(checked);
  EXPECT_EQ(h.method, "POST");
  EXPECT_EQ(h.target, "/webhook");
  EXPECT_EQ(h.version, "HTTP/1.1");
  EXPECT_EQ(h.framing, BodyFraming::kLength);
  EXPECT_EQ(h.content_length, 23741u);
  EXPECT_EQ(h.field("x-github-event"), "ping");
  EXPECT_EQ(h.field("content-length"), "23741");
  EXPECT_EQ(h.field("X-Missing"), "");
  EXPECT_EQ(h.fields.size(), 6u);
}

TEST(RequestHead, FramingIsOneOfLengthChunkedOrNone) {
  auto chunked = check(kPost + "Transfer-Encoding: Chunked\r\n\r\n");
  ASSERT_EQ(status_of(chunked), 0);
  EXPECT_EQ(std::get<RequestHead>(chunked).framing, BodyFraming::kChunked);
  auto get = check("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_EQ(status_of(get), 0);
  EXPECT_EQ(std::get<RequestHead>(get).framing, BodyFraming::kNone);
  auto zero = check(kPost + "Content-Length: 000\r\n\r\n");
  ASSERT_EQ(status_of(zero), 0);
  EXPECT_EQ(std::get<RequestHead>(zero).content_length, 0u);
  // HTTP/1.0 needs no Host; a length past 19 digits is kept as "too large" for the front's 413.
  auto old = check("POST /webhook HTTP/1.0\r\nContent-Length: 123456789012345678901234\r\n\r\n");
  ASSERT_EQ(status_of(old), 0);
  EXPECT_EQ(std::get<RequestHead>(old).content_length, UINT64_MAX);
}

TEST(RequestHead, RefusesEveryAmbiguousFraming) {
  struct Refused {
    std::string head;
    int status;
  };
  const std::vector<Refused> cases = {
      {kPost + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
      {kPost + "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n", 400},
      {kPost + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
      {kPost + "Transfer-Encoding: chunked, chunked\r\n\r\n", 400},
      {kPost + "Transfer-Encoding: chunked, gzip\r\n\r\n", 400},
      {kPost + "Transfer-Encoding: gzip\r\n\r\n", 400},
      {kPost + "Transfer-Encoding: gzip, chunked\r\n\r\n", 501},
      {kPost + "Transfer-Encoding: ,chunked\r\n\r\n", 400},
      {kPost + "Transfer-Encoding: \r\n\r\n", 400},
      {kPost + "Transfer-Encoding: chunked;q=1\r\n\r\n", 400},
      {"POST /webhook HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
      {kPost + "Content-Length: 2\r\nContent-Length: 7\r\n\r\n", 400},
      {kPost + "Content-Length: 7\r\ncontent-length: 7\r\n\r\n", 400},
      {kPost + "Content-Length: 7, 7\r\n\r\n", 400},
      {kPost + "Content-Length: +7\r\n\r\n", 400},
      {kPost + "Content-Length: -7\r\n\r\n", 400},
      {kPost + "Content-Length: 7\xff\r\n\r\n", 400},
      {kPost + "Content-Length: 7 4\r\n\r\n", 400},
      {kPost + "Content-Length: 0x7\r\n\r\n", 400},
      {kPost + "Content-Length: \r\n\r\n", 400},
      {kPost + "\r\n", 411},
      {"PUT /webhook HTTP/1.1\r\nHost: x\r\n\r\n", 411},
  };
  for (const Refused& c : cases) EXPECT_EQ(status_of(check(c.head)), c.status) << c.head;
}

TEST(RequestHead, RefusesLenientSyntax) {
  struct Refused {
    std::string head;
    int status;
  };
  const std::vector<Refused> cases = {
      {"BREW /webhook HTTP/1.1\r\nHost: x\r\n\r\n", 501},
      {"post /webhook HTTP/1.1\r\nHost: x\r\n\r\n", 501},
      {"TRACE / HTTP/1.1\r\nHost: x\r\n\r\n", 501},
      {"CONNECT x:443 HTTP/1.1\r\nHost: x\r\n\r\n", 501},
      {"P\xffST /webhook HTTP/1.1\r\nHost: x\r\n\r\n", 400},
      {"POST /webhook HTTP/9.9\r\nHost: x\r\n\r\n", 505},
      {"POST /webhook HTTP/2.0\r\nHost: x\r\n\r\n", 505},
      {"POST /webhook http/1.1\r\nHost: x\r\n\r\n", 400},
      {"POST /webhook HTTP/1.1.1\r\nHost: x\r\n\r\n", 400},
      {"POST /webhook\r\nHost: x\r\n\r\n", 400},
      {"POST  /webhook HTTP/1.1\r\nHost: x\r\n\r\n", 400},
      {"POST /webhook HTTP/1.1 \r\nHost: x\r\n\r\n", 400},
      {"POST /web\thook HTTP/1.1\r\nHost: x\r\n\r\n", 400},
      {"POST /web\xffhook HTTP/1.1\r\nHost: x\r\n\r\n", 400},
      {"POST /webhook#frag HTTP/1.1\r\nHost: x\r\n\r\n", 400},
      {"POST webhook HTTP/1.1\r\nHost: x\r\n\r\n", 400},
      {"GET * HTTP/1.1\r\nHost: x\r\n\r\n", 400},
      {"POST /webhook HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 400},
      {kPost + "Host: y\r\nContent-Length: 0\r\n\r\n", 400},
      {"POST /webhook HTTP/1.1\r\nHost: x y\r\nContent-Length: 0\r\n\r\n", 400},
      {"POST /webhook HTTP/1.1\r\nHost: user@x\r\nContent-Length: 0\r\n\r\n", 400},
      {kPost + "X-A: a\rb\r\nContent-Length: 0\r\n\r\n", 400},
      {kPost + "X-A: a\r\r\nContent-Length: 0\r\n\r\n", 400},
      {kPost + "X-A: a\r\n b\r\nContent-Length: 0\r\n\r\n", 400},
      {kPost + "X-A: a\r\n\tb\r\nContent-Length: 0\r\n\r\n", 400},
      {kPost + "X-A a\r\nContent-Length: 0\r\n\r\n", 400},
      {kPost + "Content-Length : 0\r\n\r\n", 400},
      {kPost + "Content-Length\t: 0\r\n\r\n", 400},
      {kPost + ": nameless\r\nContent-Length: 0\r\n\r\n", 400},
      {kPost + "X(A): a\r\nContent-Length: 0\r\n\r\n", 400},
      {kPost + std::string("X-A: a\0b\r\n", 10) + "Content-Length: 0\r\n\r\n", 400},
      {kPost + "X-A: a\x7f\r\nContent-Length: 0\r\n\r\n", 400},
      {kPost + "X-A: a\x01\r\nContent-Length: 0\r\n\r\n", 400},
      {"POST /webhook HTTP/1.1\nHost: x\nContent-Length: 0\n\n", 400},
      {kPost + "Content-Length: 0\n\r\n", 400},
      {kPost + "Content-Length: 0\r\n\r\nextra", 400},
      {kPost + "Content-Length: 0\r\n", 400},
  };
  for (const Refused& c : cases) EXPECT_EQ(status_of(check(c.head)), c.status) << c.head;
}

TEST(RequestHead, TakesWhatTheGrammarAllows) {
  // obs-text in a value (the content type may hold any byte: 415 is the service's answer),
  // tabs around a value, an empty value, an absolute-form target, OPTIONS *.
  for (const std::string& head :
       {kPost + "Content-Type: \xff\xfe\r\nContent-Length: 0\r\n\r\n",
        kPost + "X-A:\t a b \t\r\nContent-Length: 0\r\n\r\n",
        kPost + "X-A:\r\nContent-Length: 0\r\n\r\n",
        std::string("POST http://kgate.example/webhook HTTP/1.1\r\nHost: kgate.example\r\n"
                    "Content-Length: 0\r\n\r\n"),
        std::string("OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n"),
        std::string("GET /healthz HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n"),
        std::string("GET /healthz HTTP/1.1\r\nHost:\r\n\r\n"),
        std::string("DELETE /webhook HTTP/1.1\r\nHost: x\r\n\r\n")}) {
    auto checked = check(head);
    EXPECT_EQ(status_of(checked), 0)
        << head << ": " << (status_of(checked) ? std::get<HeadRefusal>(checked).message : "");
  }
}

TEST(RequestHead, LimitsAreHeaderTooLarge) {
  std::string many = kPost;
  for (int i = 0; i < 101; ++i) many += "X-N: " + std::to_string(i) + "\r\n";
  EXPECT_EQ(status_of(check(many + "\r\n")), 431);
  EXPECT_EQ(status_of(check(kPost + "X-Long: " + std::string(8200, 'a') + "\r\n\r\n")), 431);
  HeadLimits small{.max_bytes = 64, .max_fields = 100, .max_line_bytes = 8192};
  EXPECT_EQ(
      status_of(check_request_head(kPost + "X-A: " + std::string(40, 'a') + "\r\n\r\n", small)),
      431);
}

TEST(RequestHead, ScannerFindsTheEndInPiecesAndStopsAtTheLimits) {
  const std::string head = kPost + "Content-Length: 2\r\n\r\n";
  const std::string bytes = head + "{}";
  // Fed one byte at a time, as a slow sender sends it.
  HeadScanner scanner(kLimits);
  HeadScanner::State state = HeadScanner::State::kMore;
  size_t fed = 0;
  while (state == HeadScanner::State::kMore && fed < bytes.size())
    state = scanner.scan(std::string_view(bytes).substr(0, ++fed));
  ASSERT_EQ(state, HeadScanner::State::kWhole);
  EXPECT_EQ(scanner.size(), head.size());
  EXPECT_EQ(fed, head.size());

  // A bare-LF head ends (and is then refused) instead of waiting for a CRLF.
  HeadScanner lf(kLimits);
  EXPECT_EQ(lf.scan("POST / HTTP/1.1\nHost: x\n\n{}"), HeadScanner::State::kWhole);
  EXPECT_EQ(lf.size(), 25u);

  // Too many lines, one line too long, too many bytes: said before the head ends.
  HeadLimits small{.max_bytes = 1000, .max_fields = 3, .max_line_bytes = 100};
  HeadScanner lines(small);
  EXPECT_EQ(lines.scan("POST / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\n"), HeadScanner::State::kMore);
  EXPECT_EQ(lines.scan("POST / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n"),
            HeadScanner::State::kTooLarge);
  HeadScanner line(small);
  EXPECT_EQ(line.scan("POST / HTTP/1.1\r\nX: " + std::string(120, 'a')),
            HeadScanner::State::kTooLarge);
  std::string big = "POST / HTTP/1.1\r\n";
  while (big.size() < 1100) big += std::string(60, 'a') + ": b\r\n";
  small.max_fields = 1000;
  HeadScanner bytes_limit(small);
  EXPECT_EQ(bytes_limit.scan(big), HeadScanner::State::kTooLarge);
}

}  // namespace
}  // namespace kgate::webhooks
