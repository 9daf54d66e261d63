// Request framing against the built `kgate serve` on 127.0.0.1, over raw
// sockets: every request whose framing has more than one reading (both
// lengths, two lengths, "+7", bare CR, folded lines, no Host, ...) carries a
// complete signed delivery after or inside it, the way a request is smuggled
// past a proxy. Each must be answered once, with the connection closed, the
// hidden delivery never stored, and the sender's next well-formed delivery on
// a new connection accepted.
#include <gtest/gtest.h>

#include "raw_http.h"
#include "serve_fixture.h"

namespace kgate::testing {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// A signed ping delivery as GitHub sends it, as raw bytes.
std::string signed_delivery(const std::string& id, const std::string& connection = "keep-alive") {
  std::string body = json{{"zen", "Design for failure."}, {"hook_id", 1}}.dump();
  return "POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
         "X-GitHub-Event: ping\r\nX-GitHub-Delivery: " +
         id + "\r\nX-Hub-Signature-256: " + webhooks::github_signature(kSecret, body) +
         "\r\nConnection: " + connection + "\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n\r\n" + body;
}

std::string chunk_of(const std::string& bytes) {
  char size[32];
  std::snprintf(size, sizeof size, "%zx\r\n", bytes.size());
  return size + bytes + "\r\n0\r\n\r\n";
}

// The statuses of the responses in `received`, in order (each framed by its Content-Length).
std::vector<int> statuses_in(const std::string& received) {
  std::vector<int> out;
  size_t at = 0;
  while (received.compare(at, 9, "HTTP/1.1 ") == 0) {
    out.push_back(std::atoi(received.c_str() + at + 9));
    size_t head_end = received.find("\r\n\r\n", at);
    if (head_end == std::string::npos) break;
    size_t length_at = received.find("Content-Length: ", at);
    size_t length =
        length_at < head_end ? std::strtoull(received.c_str() + length_at + 16, nullptr, 10) : 0;
    at = head_end + 4 + length;
  }
  return out;
}

struct Exchange {
  std::vector<int> statuses;
  bool closed = false;
  double seconds = 0;
  std::string received;
};

class StrictFraming : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(have_octokit_examples())
        << "run scripts/setup (npm ci in tests/) to install @octokit/webhooks-examples";
    std::filesystem::copy(example_dir(), dir / "repo", std::filesystem::copy_options::recursive);
    write(dir / "job.sh", "#!/bin/sh\nexit 0\n");
    std::filesystem::permissions(dir / "job.sh", std::filesystem::perms::owner_all);
  }
  std::unique_ptr<ServeProcess> start(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"--listen",      "127.0.0.1:0",
                                     "--repo",        (dir / "repo").string(),
                                     "--state-dir",   (dir / "state").string(),
                                     "--job-command", (dir / "job.sh").string(),
                                     "--no-recovery", "--durability",
                                     "normal"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto server = std::make_unique<ServeProcess>(
        args, std::map<std::string, std::string>{{"KGATE_WEBHOOK_SECRET", kSecret}},
        dir / "serve.log");
    EXPECT_TRUE(server->start()) << server->log();
    return server;
  }
  // Sends `bytes` on a new connection from `source` and reads until the server closes.
  Exchange exchange(ServeProcess& server, const std::string& bytes, const std::string& source,
                    bool finish_sending = true, double timeout_s = 8) {
    RawConnection c(server.port(), source);
    auto started = Clock::now();
    c.send_all(bytes);  // may stop early: the server closes on an error
    if (finish_sending) c.finish_sending();
    Exchange out;
    out.closed = c.closed_within(timeout_s);
    out.seconds = std::chrono::duration<double>(Clock::now() - started).count();
    out.received = c.received();
    out.statuses = statuses_in(out.received);
    return out;
  }
  int64_t stored(const std::string& id) {
    return query_int(dir / "state" / "queue.db",
                     "SELECT count(*) FROM deliveries WHERE id='" + id + "'");
  }
  // A well-formed delivery on a new connection from `source`: its status.
  int deliver_from(ServeProcess& server, const std::string& source,
                   const std::string& id = new_delivery_id()) {
    Exchange e = exchange(server, signed_delivery(id, "close"), source);
    if (e.statuses.size() != 1) return -1;
    return e.statuses[0] == 202 && stored(id) == 1 ? 202 : e.statuses[0];
  }

  TempDir dir;
};

struct Case {
  std::string name;
  int status;
  std::string bytes;  // the hidden delivery is appended or inside
};

std::vector<Case> smuggling_cases(const std::string& hidden) {
  const std::string n = std::to_string(hidden.size());
  const std::string post =
      "POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n";
  std::string many;  // one body that was answered 151 times
  for (int i = 0; i < 150; ++i) many += "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
  many += hidden;
  return {
      {"unknown method", 501,
       "BREW /webhook HTTP/1.1\r\nHost: x\r\nContent-Length: " + n + "\r\n\r\n" + hidden},
      {"lowercase method", 501,
       "post /webhook HTTP/1.1\r\nHost: x\r\nContent-Length: " + n + "\r\n\r\n" + hidden},
      {"unknown method, a body of 151 requests", 501,
       "BREW /webhook HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(many.size()) +
           "\r\n\r\n" + many},
      {"HTTP/9.9", 505,
       "POST /webhook HTTP/9.9\r\nHost: x\r\nContent-Length: " + n + "\r\n\r\n" + hidden},
      {"version in lowercase", 400,
       "POST /webhook http/1.1\r\nHost: x\r\nContent-Length: " + n + "\r\n\r\n" + hidden},
      {"two spaces in the request line", 400,
       "POST  /webhook HTTP/1.1\r\nHost: x\r\nContent-Length: " + n + "\r\n\r\n" + hidden},
      {"60 KB header line", 431,
       post + "X-Long: " + std::string(60000, 'a') + "\r\nContent-Length: " + n + "\r\n\r\n" +
           hidden},
      {"Content-Length and Transfer-Encoding", 400,
       post + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + hidden},
      {"Transfer-Encoding and Content-Length", 400,
       post + "Transfer-Encoding: chunked\r\nContent-Length: " + std::to_string(5 + hidden.size()) +
           "\r\n\r\n0\r\n\r\n" + hidden},
      {"Transfer-Encoding twice", 400,
       post + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + hidden},
      {"Transfer-Encoding chunked twice in one field", 400,
       post + "Transfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n" + hidden},
      {"Transfer-Encoding gzip", 400, post + "Transfer-Encoding: gzip\r\n\r\n" + hidden},
      {"Transfer-Encoding gzip, chunked", 501,
       post + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n" + hidden},
      {"Transfer-Encoding in HTTP/1.0", 400,
       "POST /webhook HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + hidden},
      {"two different Content-Length", 400,
       post + "Content-Length: 2\r\nContent-Length: " + std::to_string(2 + hidden.size()) +
           "\r\n\r\n{}" + hidden},
      {"the same Content-Length twice", 400,
       post + "Content-Length: " + n + "\r\nContent-Length: " + n + "\r\n\r\n" + hidden},
      {"a list of lengths", 400, post + "Content-Length: " + n + ", " + n + "\r\n\r\n" + hidden},
      {"Content-Length +N", 400, post + "Content-Length: +" + n + "\r\n\r\n" + hidden},
      {"Content-Length N\\xff", 400, post + "Content-Length: " + n + "\xff\r\n\r\n" + hidden},
      {"Content-Length with a space inside", 400,
       post + "Content-Length: " + n.substr(0, 1) + " " + n.substr(1) + "\r\n\r\n" + hidden},
      {"Content-Length in hexadecimal", 400, post + "Content-Length: 0x20\r\n\r\n" + hidden},
      {"no Host in HTTP/1.1", 400,
       "POST /webhook HTTP/1.1\r\nContent-Length: " + n + "\r\n\r\n" + hidden},
      {"two Host", 400, post + "Host: y\r\nContent-Length: " + n + "\r\n\r\n" + hidden},
      {"bare CR in a value", 400, post + "X-A: a\rb\r\nContent-Length: " + n + "\r\n\r\n" + hidden},
      {"obsolete line folding", 400,
       post + "X-A: a\r\n b\r\nContent-Length: " + n + "\r\n\r\n" + hidden},
      {"folded Content-Length", 400, post + "Content-Length:\r\n " + n + "\r\n\r\n" + hidden},
      {"a line without a colon", 400, post + "X-A a\r\nContent-Length: " + n + "\r\n\r\n" + hidden},
      {"whitespace before the colon", 400, post + "Content-Length : " + n + "\r\n\r\n" + hidden},
      {"lines ended by LF", 400,
       "POST /webhook HTTP/1.1\nHost: x\nContent-Length: " + n + "\n\n" + hidden},
      {"NUL in a value", 400,
       post + std::string("X-A: a\0b\r\n", 10) + "Content-Length: " + n + "\r\n\r\n" + hidden},
      {"a fragment in the target", 400,
       "POST /webhook#x HTTP/1.1\r\nHost: x\r\nContent-Length: " + n + "\r\n\r\n" + hidden},
      // Heads that pass, refused after: the body is not read, so the connection ends.
      {"GET with a body", 200,
       "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: " + n + "\r\n\r\n" + hidden},
      {"PUT /webhook with a body", 405,
       "PUT /webhook HTTP/1.1\r\nHost: x\r\nContent-Length: " + n + "\r\n\r\n" + hidden},
      {"compressed body", 415,
       post + "Content-Encoding: gzip\r\nContent-Length: " + n + "\r\n\r\n" + hidden},
      {"form-encoded body over 8 KB", 415,
       "POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
       "Content-Length: " +
           std::to_string(hidden.size() + 9000) + "\r\n\r\n" + hidden + std::string(9000, ' ')},
      {"unsigned delivery, then a pipelined one", 401,
       post + "X-GitHub-Event: ping\r\nX-GitHub-Delivery: unsigned\r\nContent-Length: 2\r\n\r\n{}" +
           hidden},
      {"chunked delivery, then a pipelined one", 401,
       post +
           "X-GitHub-Event: ping\r\nX-GitHub-Delivery: chunked\r\nTransfer-Encoding: "
           "chunked\r\n\r\n" +
           chunk_of("{}") + hidden},
  };
}

TEST_F(StrictFraming, NoHiddenDeliveryIsEverStored) {
  auto server = start();
  // Every case hides a delivery of its own; the ids have one length, so one table serves all.
  const std::string placeholder = "smuggled-000";
  auto cases = smuggling_cases(signed_delivery(placeholder));
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    char id[32];
    std::snprintf(id, sizeof id, "smuggled-%03zu", i);
    std::string bytes = c.bytes;
    for (size_t at = bytes.find(placeholder); at != std::string::npos;
         at = bytes.find(placeholder, at + 1))
      bytes.replace(at, placeholder.size(), id);
    std::string source = "127.0.1." + std::to_string(i + 1);
    Exchange e = exchange(*server, bytes, source);
    EXPECT_EQ(e.statuses.size(), 1u) << c.name << ": " << e.received.substr(0, 600);
    EXPECT_EQ(e.statuses.empty() ? 0 : e.statuses[0], c.status)
        << c.name << ": " << e.received.substr(0, 300);
    EXPECT_TRUE(e.closed) << c.name;
    EXPECT_NE(e.received.find("Connection: close"), std::string::npos) << c.name;
    EXPECT_EQ(e.received.find("Keep-Alive"), std::string::npos) << c.name;
    EXPECT_LT(e.seconds, 3) << c.name;
    // The sender's next delivery is not refused for what this one did.
    EXPECT_EQ(deliver_from(*server, source), 202) << c.name;
    EXPECT_EQ(stored(id), 0) << c.name << " stored the hidden delivery";
  }
  EXPECT_EQ(server->log().find("\"smuggled-"), std::string::npos) << server->log().substr(0, 3000);
  EXPECT_EQ(server->terminate(), 0);
}

TEST_F(StrictFraming, ALengthWithoutABodyIsNotWaitedFor) {
  auto server = start();
  // The sender keeps the connection open: the answer must not wait for its close.
  Exchange e =
      exchange(*server,
               "POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\r\n" +
                   signed_delivery("smuggled-no-length"),
               "127.0.2.1", /*finish_sending=*/false);
  ASSERT_EQ(e.statuses, std::vector<int>{411}) << e.received;
  EXPECT_TRUE(e.closed);
  EXPECT_LT(e.seconds, 3);
  EXPECT_EQ(stored("smuggled-no-length"), 0);
  EXPECT_EQ(server->terminate(), 0);
}

TEST_F(StrictFraming, OversizedLengthIsRefusedBeforeTheBody) {
  auto server = start();
  for (const char* length :
       {"26214401", "31457280", "209715200", "1000000000000", "100000000000000000000000000000"}) {
    // Only the head is sent: a 413 that waited for the body would come after 10 s as a 408.
    Exchange e = exchange(*server,
                          std::string("POST /webhook HTTP/1.1\r\nHost: x\r\n"
                                      "Content-Type: application/json\r\nX-GitHub-Event: ping\r\n"
                                      "Expect: 100-continue\r\nContent-Length: ") +
                              length + "\r\n\r\n",
                          "127.0.3.1", /*finish_sending=*/false);
    ASSERT_EQ(e.statuses, std::vector<int>{413}) << length << ": " << e.received;
    EXPECT_EQ(e.received.find("100 Continue"), std::string::npos) << length;
    EXPECT_TRUE(e.closed) << length;
    EXPECT_LT(e.seconds, 3) << length;
    // No penalty for a refused sender: its next delivery is accepted.
    EXPECT_EQ(deliver_from(*server, "127.0.3.1"), 202) << length;
  }
  httplib::Client client("127.0.0.1", server->port());
  auto metrics = client.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("kgate_http_refused_total{reason=\"too-large\"} 5"),
            std::string::npos)
      << metrics->body;
  EXPECT_NE(metrics->body.find("event=\"ping\",outcome=\"too-large\"} 5"), std::string::npos)
      << metrics->body;
  EXPECT_EQ(server->terminate(), 0);
}

TEST_F(StrictFraming, PipelinedRequestsOnOneConnectionAreAllServed) {
  auto server = start();
  std::string first = new_delivery_id(), second = new_delivery_id();
  // Keep-alive pipelining, an empty line between requests (RFC 9112 2.2), a last request that
  // closes.
  Exchange e = exchange(*server,
                        signed_delivery(first) + "\r\n" + signed_delivery(second) +
                            "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                        "127.0.4.1", /*finish_sending=*/false);
  EXPECT_EQ(e.statuses, (std::vector<int>{202, 202, 200})) << e.received;
  EXPECT_TRUE(e.closed);
  EXPECT_EQ(stored(first), 1);
  EXPECT_EQ(stored(second), 1);
  // A chunked delivery is served; its connection closes after it.
  std::string body = json{{"zen", "Chunked."}}.dump();
  std::string chunked_id = new_delivery_id();
  e = exchange(*server,
               "POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               "X-GitHub-Event: ping\r\nX-GitHub-Delivery: " +
                   chunked_id +
                   "\r\nX-Hub-Signature-256: " + webhooks::github_signature(kSecret, body) +
                   "\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk_of(body) +
                   signed_delivery("smuggled-after-chunked"),
               "127.0.4.2");
  EXPECT_EQ(e.statuses, std::vector<int>{202}) << e.received;
  EXPECT_NE(e.received.find("Connection: close"), std::string::npos);
  EXPECT_EQ(stored(chunked_id), 1);
  EXPECT_EQ(stored("smuggled-after-chunked"), 0);
  EXPECT_EQ(server->terminate(), 0);
}

TEST_F(StrictFraming, ASlowSenderIsCutButItsNextDeliveriesAreNot) {
  auto server = start({"--request-timeout", "5"});
  // A body that stops coming: 408 at the deadline.
  RawConnection slow(server->port(), "127.0.5.1");
  std::string body = json{{"zen", std::string(200, 'z')}}.dump();
  slow.send_all(
      "POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "X-GitHub-Event: ping\r\nX-GitHub-Delivery: slow\r\nX-Hub-Signature-256: " +
      webhooks::github_signature(kSecret, body) +
      "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body.substr(0, 10));
  EXPECT_TRUE(slow.closed_within(7));
  EXPECT_EQ(status_of(slow.received()), 408) << slow.received();
  // The same address's well-formed deliveries are accepted at once, several at a time.
  std::vector<std::thread> senders;
  std::vector<int> statuses(4, 0);
  std::vector<std::string> ids;  // drawn here: new_delivery_id is not for several threads
  for (int i = 0; i < 4; ++i) ids.push_back(new_delivery_id());
  for (int i = 0; i < 4; ++i)
    senders.emplace_back([&, i] { statuses[i] = deliver_from(*server, "127.0.5.1", ids[i]); });
  for (auto& t : senders) t.join();
  EXPECT_EQ(statuses, (std::vector<int>{202, 202, 202, 202}));
  // While penalized, a slow head from that address is cut sooner than the request timeout would.
  RawConnection again(server->port(), "127.0.5.1");
  auto started = Clock::now();
  again.send_all("POST /webhook HTTP/1.1\r\nHost: x\r\n");
  EXPECT_TRUE(again.closed_within(4));
  double seconds = std::chrono::duration<double>(Clock::now() - started).count();
  EXPECT_EQ(status_of(again.received()), 408) << again.received();
  EXPECT_LT(seconds, 3.5);
  EXPECT_EQ(server->terminate(), 0);
}

}  // namespace
}  // namespace kgate::testing
