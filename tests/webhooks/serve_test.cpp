// End to end: the built `kgate serve` on 127.0.0.1 receives real GitHub
// payloads (@octokit/webhooks-examples), signed as GitHub signs them. Jobs run
// a small shell script in place of kgate, which records what it was asked to do.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <sstream>

#include "serve_fixture.h"

namespace kgate::testing {
namespace {

using nlohmann::json;

class ServeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(have_octokit_examples())
        << "run scripts/setup (npm ci in tests/) to install @octokit/webhooks-examples";
    std::filesystem::copy(example_dir(), repo, std::filesystem::copy_options::recursive);
    std::filesystem::create_directories(job_log.parent_path());
    set_job_script("exit 0");
  }
  // The job command: records "<job id> <attempt> <arguments>" then runs `body`.
  void set_job_script(const std::string& body) {
    write(script, "#!/bin/sh\necho \"$KGATE_JOB_ID $KGATE_JOB_ATTEMPT $*\" >> '" +
                      job_log.string() + "'\n" + body + "\n");
    std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  }
  std::unique_ptr<ServeProcess> make_server(std::vector<std::string> extra = {},
                                            std::map<std::string, std::string> env = {}) {
    std::vector<std::string> args = {"--listen",      "127.0.0.1:0",
                                     "--repo",        repo.string(),
                                     "--state-dir",   state.string(),
                                     "--job-command", script.string(),
                                     "--workers",     "2",
                                     "--retry-base",  "0.2"};
    args.insert(args.end(), extra.begin(), extra.end());
    env.emplace("KGATE_WEBHOOK_SECRET", "retired secret," + kSecret);
    return std::make_unique<ServeProcess>(args, env, dir / "serve.log");
  }
  int64_t count(const std::string& sql) { return query_int(db(), sql); }
  std::filesystem::path db() const { return state / "queue.db"; }
  std::vector<std::string> job_log_lines() {
    std::vector<std::string> lines;
    std::istringstream in(read(job_log));
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }

  TempDir dir;
  std::filesystem::path repo = dir / "repo";
  std::filesystem::path state = dir / "state";
  std::filesystem::path script = dir / "job.sh";
  // A folder of its own: with the queue hidden from jobs, the folders above
  // the state folder take no new entries from a job (core/file_shield.h).
  std::filesystem::path job_log = dir / "logs" / "jobs.log";
};

json pr_payload(const std::string& action, const std::string& head = "") {
  json p = example_payload("pull_request", action);
  if (!head.empty()) p["pull_request"]["head"]["sha"] = head;
  return p;
}

json comment_payload(const std::string& body, int number = 2) {
  json p = example_payload("issue_comment", "created");
  p["comment"]["body"] = body;
  p["issue"]["number"] = number;
  p["issue"]["pull_request"] = {
      {"url", "https://api.github.com/repos/Codertocat/Hello-World/pulls/2"}};
  return p;
}

std::string sha_for(int i) {
  char buffer[41];
  std::snprintf(buffer, sizeof buffer, "%040x", i + 1);
  return buffer;
}

TEST_F(ServeTest, RealPayloadsQueueTheRightJobs) {
  auto server = make_server();
  ASSERT_TRUE(server->start()) << server->log();
  httplib::Client client("127.0.0.1", server->port());

  auto r = post_delivery(client, "pull_request", pr_payload("opened").dump(), "d-pr-opened");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 202) << r->body;
  EXPECT_EQ(json::parse(r->body)["jobs"], 1);

  json push;
  for (const auto& entry : octokit_examples())
    if (entry["name"] == "push")
      for (const auto& e : entry["examples"])
        if (e["ref"] == "refs/heads/master") push = e;
  push["commits"][0]["modified"] = {"host/rmsnorm.cpp"};
  r = post_delivery(client, "push", push.dump(), "d-push");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 202) << r->body;
  EXPECT_EQ(json::parse(r->body)["jobs"], 2);

  r = post_delivery(client, "issue_comment", comment_payload("/kgate optimize softmax").dump(),
                    "d-cmd");
  ASSERT_TRUE(r);
  EXPECT_EQ(json::parse(r->body)["jobs"], 1);

  // A delivery seen before is answered and not queued again.
  r = post_delivery(client, "pull_request", pr_payload("opened").dump(), "d-pr-opened");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(json::parse(r->body)["duplicate"], true);

  // Acknowledged and ignored: ping, an event kgate does not use, an untouched comment.
  r = post_delivery(client, "ping", example_payload("ping").dump(), "d-ping");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 202);
  r = post_delivery(client, "star", example_payload("star").dump(), "d-star");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 202);
  EXPECT_EQ(json::parse(r->body)["jobs"], 0);

  ASSERT_TRUE(eventually([&] {
    return count("SELECT count(*) FROM jobs WHERE state='done'") == 4;
  })) << server->log();
  EXPECT_EQ(count("SELECT count(*) FROM jobs"), 4);
  EXPECT_EQ(count("SELECT count(*) FROM deliveries"), 5);
  auto lines = job_log_lines();
  ASSERT_EQ(lines.size(), 4u);
  std::string all;
  for (const auto& l : lines) all += l + "\n";
  EXPECT_NE(all.find("gate --repo " + repo.string() + " --base "), std::string::npos) << all;
  EXPECT_NE(all.find("--head ec26c3e57ca3a959ca5aad62de7213c562f8c821 --pr 2 --json"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("optimize rmsnorm --repo"), std::string::npos) << all;
  EXPECT_NE(all.find("baseline record --repo " + repo.string() + " --kernel rmsnorm"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("optimize softmax --repo"), std::string::npos) << all;

  auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  auto metrics = client.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find(
                "kgate_webhook_deliveries_total{event=\"pull_request\",outcome=\"queued\"} 1"),
            std::string::npos)
      << metrics->body;
  EXPECT_NE(metrics->body.find(
                "kgate_webhook_deliveries_total{event=\"pull_request\",outcome=\"duplicate\"} 1"),
            std::string::npos);
  EXPECT_NE(metrics->body.find("kgate_jobs{state=\"done\"} 4"), std::string::npos) << metrics->body;
  EXPECT_NE(metrics->body.find("kgate_job_seconds_count{kind=\"optimize\"} 2"), std::string::npos);
  EXPECT_EQ(server->terminate(), 0) << server->log();
  // One JSON log line per delivery and per finished job.
  int delivery_lines = 0, job_lines = 0;
  std::istringstream log(server->log());
  for (std::string line; std::getline(log, line);) {
    auto j = json::parse(line, nullptr, false);
    if (!j.is_object()) continue;
    delivery_lines += j.value("msg", "") == "delivery";
    job_lines += j.value("msg", "") == "job done";
  }
  EXPECT_EQ(delivery_lines, 6);
  EXPECT_EQ(job_lines, 4);
}

TEST_F(ServeTest, EveryBadRequestGetsItsStatusAndQueuesNothing) {
  auto server = make_server();
  ASSERT_TRUE(server->start()) << server->log();
  httplib::Client client("127.0.0.1", server->port());
  client.set_read_timeout(30);
  client.set_write_timeout(30);
  const std::string body = pr_payload("opened").dump();
  auto post = [&](httplib::Headers headers, const std::string& content, const std::string& type) {
    auto r = client.Post("/webhook", headers, content, type.c_str());
    return r ? r->status : -1;
  };
  httplib::Headers good = {{"X-GitHub-Event", "pull_request"},
                           {"X-GitHub-Delivery", "d-bad"},
                           {"X-Hub-Signature-256", webhooks::github_signature(kSecret, body)}};
  auto without = [&](const std::string& name) {
    httplib::Headers h = good;
    h.erase(name);
    return h;
  };
  auto with = [&](const std::string& name, const std::string& value) {
    httplib::Headers h = good;
    h.erase(name);
    h.emplace(name, value);
    return h;
  };
  EXPECT_EQ(post(without("X-Hub-Signature-256"), body, "application/json"), 401);
  EXPECT_EQ(post(with("X-Hub-Signature-256", webhooks::github_signature("wrong secret", body)),
                 body, "application/json"),
            401);
  std::string tampered = body;
  tampered[tampered.size() / 2] ^= 1;
  EXPECT_EQ(post(good, tampered, "application/json"), 401);
  EXPECT_EQ(post(with("X-Hub-Signature-256", "sha1=0123"), body, "application/json"), 401);
  EXPECT_EQ(post(without("X-GitHub-Event"), body, "application/json"), 400);
  EXPECT_EQ(post(without("X-GitHub-Delivery"), body, "application/json"), 400);
  EXPECT_EQ(post(with("X-GitHub-Delivery", "../../etc"), body, "application/json"), 400);
  // GitHub's other content type, form-encoded payload=..., is refused with a hint.
  std::string form = "payload=" + body;  // what GitHub sends, unescaped for brevity
  auto r = client.Post("/webhook",
                       with("X-Hub-Signature-256", webhooks::github_signature(kSecret, form)), form,
                       "application/x-www-form-urlencoded");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 415);
  EXPECT_NE(r->body.find("application/json"), std::string::npos);
  EXPECT_EQ(post(good, body, "text/plain"), 415);
  const std::string broken = "{\"action\": \"opened\", ";
  EXPECT_EQ(post(with("X-Hub-Signature-256", webhooks::github_signature(kSecret, broken)), broken,
                 "application/json"),
            400);
  const std::string array = "[1, 2, 3]";
  EXPECT_EQ(post(with("X-Hub-Signature-256", webhooks::github_signature(kSecret, array)), array,
                 "application/json"),
            400);
  // Larger than GitHub's 25 MB: refused before it is read.
  std::string huge(25 * 1024 * 1024 + 1, ' ');
  EXPECT_EQ(post(with("X-Hub-Signature-256", webhooks::github_signature(kSecret, huge)), huge,
                 "application/json"),
            413);
  auto get = client.Get("/webhook");
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 405);
  auto put = client.Put("/webhook", body, "application/json");
  ASSERT_TRUE(put);
  EXPECT_EQ(put->status, 405);
  EXPECT_EQ(count("SELECT count(*) FROM deliveries"), 0);
  EXPECT_EQ(count("SELECT count(*) FROM jobs"), 0);

  // An unknown event, well signed: acknowledged, stored as ignored, no job.
  const std::string unknown = R"({"action":"created","repository":{"full_name":"o/r"}})";
  httplib::Headers unknown_headers = {
      {"X-GitHub-Event", "no_such_event"},
      {"X-GitHub-Delivery", "d-unknown"},
      {"X-Hub-Signature-256", webhooks::github_signature(kSecret, unknown)}};
  EXPECT_EQ(post(unknown_headers, unknown, "application/json"), 202);
  EXPECT_EQ(count("SELECT count(*) FROM jobs"), 0);
  EXPECT_EQ(count("SELECT count(*) FROM deliveries WHERE outcome='ignored'"), 1);

  // A body of exactly 25 MB is accepted (with a signature over all of it).
  json big = pr_payload("opened");
  big["padding"] = "";
  std::string padded = big.dump();
  big["padding"] = std::string(25 * 1024 * 1024 - padded.size(), 'x');
  std::string full = big.dump();
  ASSERT_EQ(full.size(), 25u * 1024 * 1024);
  httplib::Headers full_headers = {
      {"X-GitHub-Event", "pull_request"},
      {"X-GitHub-Delivery", "d-25mb"},
      {"X-Hub-Signature-256", webhooks::github_signature(kSecret, full)}};
  EXPECT_EQ(post(full_headers, full, "application/json"), 202);
  EXPECT_EQ(count("SELECT count(*) FROM jobs"), 1);
  EXPECT_EQ(server->terminate(), 0);
}

TEST_F(ServeTest, ForkPullRequestWaitsAndApprovalHoldsForOneCommit) {
  auto server = make_server();
  ASSERT_TRUE(server->start()) << server->log();
  httplib::Client client("127.0.0.1", server->port());
  json fork = pr_payload("opened");
  fork["pull_request"]["head"]["repo"]["full_name"] = "stranger/Hello-World";
  fork["pull_request"]["author_association"] = "CONTRIBUTOR";
  const std::string first = fork["pull_request"]["head"]["sha"];

  auto r = post_delivery(client, "pull_request", fork.dump(), "t-1");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 202);
  EXPECT_EQ(json::parse(r->body)["jobs"], 0);
  ASSERT_TRUE(eventually([&] {
    return read(state / "notices.jsonl").find("waiting-for-approval") != std::string::npos;
  }));

  // Someone without write access cannot approve; a maintainer can.
  json outsider = comment_payload("/kgate approve");
  outsider["comment"]["author_association"] = "NONE";
  r = post_delivery(client, "issue_comment", outsider.dump(), "t-2");
  EXPECT_EQ(json::parse(r->body)["jobs"], 0);
  EXPECT_EQ(count("SELECT count(*) FROM approvals"), 0);
  r = post_delivery(client, "issue_comment", comment_payload("/kgate approve").dump(), "t-3");
  EXPECT_EQ(json::parse(r->body)["jobs"], 1);
  EXPECT_EQ(count("SELECT count(*) FROM approvals WHERE head_sha='" + first + "'"), 1);

  // The fork pushes again: the new head waits, rerun does not bypass it.
  json next = fork;
  next["action"] = "synchronize";
  next["pull_request"]["head"]["sha"] = sha_for(7);
  r = post_delivery(client, "pull_request", next.dump(), "t-4");
  EXPECT_EQ(json::parse(r->body)["jobs"], 0);
  r = post_delivery(client, "issue_comment", comment_payload("/kgate rerun").dump(), "t-5");
  EXPECT_EQ(json::parse(r->body)["jobs"], 0);
  // An approval naming the old commit is refused.
  r = post_delivery(client, "issue_comment",
                    comment_payload("/kgate approve " + first.substr(0, 12)).dump(), "t-6");
  EXPECT_EQ(json::parse(r->body)["jobs"], 0);
  r = post_delivery(client, "issue_comment",
                    comment_payload("/kgate approve " + sha_for(7).substr(0, 10)).dump(), "t-7");
  EXPECT_EQ(json::parse(r->body)["jobs"], 1);
  ASSERT_TRUE(
      eventually([&] { return count("SELECT count(*) FROM jobs WHERE state='done'") == 2; }));
  auto heads = query_strings(db(), "SELECT json_extract(spec, '$.head') FROM jobs ORDER BY id");
  EXPECT_EQ(heads, (std::vector<std::string>{first, sha_for(7)}));
  EXPECT_EQ(server->terminate(), 0);
}

TEST_F(ServeTest, FailedJobsAreRetriedWithBackoffThenFailedWithTheReason) {
  set_job_script("echo 'GPU lost' >&2; exit 3");
  auto server = make_server({"--max-attempts", "3"});
  ASSERT_TRUE(server->start()) << server->log();
  httplib::Client client("127.0.0.1", server->port());
  auto r = post_delivery(client, "pull_request", pr_payload("opened").dump(), "f-1");
  ASSERT_TRUE(r);
  ASSERT_TRUE(eventually([&] {
    return count("SELECT count(*) FROM jobs WHERE state='failed'") == 1;
  })) << server->log();
  EXPECT_EQ(count("SELECT attempts FROM jobs"), 3);
  auto reason = query_strings(db(), "SELECT last_error FROM jobs");
  ASSERT_EQ(reason.size(), 1u);
  EXPECT_NE(reason[0].find("exit code 3"), std::string::npos) << reason[0];
  EXPECT_NE(reason[0].find("GPU lost"), std::string::npos) << reason[0];
  EXPECT_NE(reason[0].find("attempt 3 of 3"), std::string::npos) << reason[0];
  EXPECT_EQ(job_log_lines().size(), 3u);
  EXPECT_EQ(server->terminate(), 0);
}

TEST_F(ServeTest, GateVerdictFailureIsNotRetried) {
  set_job_script("exit 1");
  auto server = make_server();
  ASSERT_TRUE(server->start()) << server->log();
  httplib::Client client("127.0.0.1", server->port());
  post_delivery(client, "pull_request", pr_payload("opened").dump(), "v-1");
  ASSERT_TRUE(
      eventually([&] { return count("SELECT count(*) FROM jobs WHERE state='done'") == 1; }));
  EXPECT_EQ(query_strings(db(), "SELECT outcome FROM jobs"),
            std::vector<std::string>{"check-failed"});
  EXPECT_EQ(job_log_lines().size(), 1u);
  EXPECT_EQ(server->terminate(), 0);
}

TEST_F(ServeTest, SigtermStopsIntakeRequeuesRunningWorkAndExitsClean) {
  set_job_script("sleep 60");
  auto server = make_server({"--drain-timeout", "1"});
  ASSERT_TRUE(server->start()) << server->log();
  httplib::Client client("127.0.0.1", server->port());
  post_delivery(client, "pull_request", pr_payload("opened").dump(), "s-1");
  ASSERT_TRUE(
      eventually([&] { return count("SELECT count(*) FROM jobs WHERE state='running'") == 1; }));
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(server->terminate(), 0) << server->log();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10);
  EXPECT_EQ(count("SELECT count(*) FROM jobs WHERE state='queued' AND attempts=0"), 1);
  // The next start runs it.
  set_job_script("exit 0");
  auto again = make_server();
  ASSERT_TRUE(again->start()) << again->log();
  ASSERT_TRUE(
      eventually([&] { return count("SELECT count(*) FROM jobs WHERE state='done'") == 1; }));
  EXPECT_EQ(again->terminate(), 0);
}

TEST_F(ServeTest, JobsRunningWhenKilledAreQueuedAgainAtStart) {
  set_job_script("sleep 60");
  auto server = make_server();
  ASSERT_TRUE(server->start()) << server->log();
  httplib::Client client("127.0.0.1", server->port());
  post_delivery(client, "pull_request", pr_payload("opened").dump(), "k-1");
  ASSERT_TRUE(
      eventually([&] { return count("SELECT count(*) FROM jobs WHERE state='running'") == 1; }));
  server->kill_now();
  set_job_script("exit 0");
  auto again = make_server();
  ASSERT_TRUE(again->start()) << again->log();
  ASSERT_TRUE(
      eventually([&] { return count("SELECT count(*) FROM jobs WHERE state='done'") == 1; }));
  EXPECT_NE(again->log().find("queued again"), std::string::npos);
  EXPECT_EQ(again->terminate(), 0);
}

// A stream of signed deliveries while the server is killed with SIGKILL and
// restarted: every delivery answered 2xx is stored once, routed once and its
// job finished once. The sender re-sends unanswered deliveries with the same
// id, as GitHub's redelivery does.
TEST_F(ServeTest, DeliveriesAnsweredSurviveSigkillExactlyOnce) {
  set_job_script("sleep 0.02");
  const int kDeliveries = 300;
  auto server = make_server();
  ASSERT_TRUE(server->start()) << server->log();
  std::atomic<int> port{server->port()};
  std::atomic<bool> sending{true};
  std::set<std::string> answered;
  std::vector<std::string> bodies;
  for (int i = 0; i < kDeliveries; ++i) {
    json p = pr_payload("synchronize", sha_for(i));
    bodies.push_back(p.dump());
  }
  std::atomic<int> attempts{0};
  std::atomic<bool> abort_sending{false};
  std::thread sender([&] {
    for (int i = 0; i < kDeliveries; ++i) {
      std::string id = "dur-" + std::to_string(i);
      while (!abort_sending) {
        httplib::Client client("127.0.0.1", port.load());
        client.set_connection_timeout(1);
        client.set_read_timeout(2);
        ++attempts;
        auto r = post_delivery(client, "pull_request", bodies[i], id);
        if (r && r->status >= 200 && r->status < 300) {
          answered.insert(id);
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    sending = false;
  });
  int kills = 0;
  bool restarted = true;
  for (; kills < 6 && sending && restarted; ++kills) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    server->kill_now();
    server = make_server();
    restarted = server->start();
    port = server->port();
  }
  if (!restarted) {
    abort_sending = true;
    sender.join();
    FAIL() << "kgate serve did not restart: " << server->log();
  }
  sender.join();
  EXPECT_GE(kills, 3) << "the load ended before the server was killed a few times";
  ASSERT_EQ(answered.size(), static_cast<size_t>(kDeliveries));
  ASSERT_TRUE(eventually(
      [&] { return count("SELECT count(*) FROM jobs WHERE state='done'") == kDeliveries; }, 60))
      << count("SELECT count(*) FROM jobs WHERE state='done'");
  EXPECT_EQ(count("SELECT count(*) FROM deliveries"), kDeliveries);
  EXPECT_EQ(count("SELECT count(*) FROM jobs"), kDeliveries);
  EXPECT_EQ(count("SELECT count(DISTINCT delivery) FROM jobs"), kDeliveries);
  EXPECT_EQ(count("SELECT count(DISTINCT json_extract(spec, '$.head')) FROM jobs"), kDeliveries);
  // Every job ran to the end at least once; a job killed mid-run ran again
  // (its attempt did not finish), and no finished job ran a second time.
  std::map<std::string, int> runs;
  for (const auto& line : job_log_lines()) ++runs[line.substr(0, line.find(' '))];
  EXPECT_EQ(runs.size(), static_cast<size_t>(kDeliveries));
  int reruns = 0;
  for (const auto& [job, n] : runs) reruns += n - 1;
  EXPECT_LE(reruns, kills * 2) << "more re-runs than jobs interrupted by the kills";
  EXPECT_EQ(server->terminate(), 0);
  std::printf("durability: %d deliveries, %d posts, %d kills, %d re-run jobs\n", kDeliveries,
              attempts.load(), kills, reruns);
}

}  // namespace
}  // namespace kgate::testing
