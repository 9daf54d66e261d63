// No token reaches a log line, an error message, a pull request, a comment,
// a check run or a local forge file, even when a server echoes it back or a
// proposal accidentally contains it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>

#include "bot/forge_config.h"
#include "bot/github_forge.h"
#include "bot/local_forge.h"
#include "bot/pull_request_publisher.h"
#include "bot_test_repo.h"
#include "core/redact.h"
#include "fake_github.h"

namespace kgate::bot {
namespace {

// Captures everything written to stderr (progress lines, warnings) while alive.
class StderrCapture {
 public:
  StderrCapture() : file_(std::tmpfile()) {
    std::fflush(stderr);
    saved_ = ::dup(2);
    ::dup2(::fileno(file_), 2);
  }
  ~StderrCapture() { restore(); }
  std::string text() {
    restore();
    std::rewind(file_);
    std::string out;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, file_)) > 0;) out.append(buf, n);
    return out;
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    ::dup2(saved_, 2);
    ::close(saved_);
    saved_ = -1;
  }
  std::FILE* file_;
  int saved_ = -1;
};

std::string all_files_under(const std::filesystem::path& dir) {
  std::string all;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file()) all += testing::read(e.path());
  return all;
}

TEST(RedactTest, ReplacesEveryOccurrence) {
  register_secret("s3cr3t-value-abc");
  EXPECT_EQ(redact("a s3cr3t-value-abc b s3cr3t-value-abc"), "a *** b ***");
  register_secret("short");  // too short to scrub safely
  EXPECT_EQ(redact("short"), "short");
}

TEST(RedactTest, NoTokenInLogsErrorsOrPublishedText) {
  const std::string token = "ghp_NeverShowThisToken0123456789abcdef";
  testing::BotRepo repo;
  testing::FakeGitHub github("octo", "kernels", token);

  StderrCapture capture;
  // 1. A server that echoes the Authorization header in an error body, with
  //    retries logging progress lines on the way.
  {
    GitHubClientOptions options;
    options.api_url = github.url();
    options.retry.max_attempts = 2;
    options.sleep = [](double) {};
    GitHubClient wrong(std::make_shared<TokenCredentials>(token + "WRONG"), options);
    auto r = wrong.call("GET", "/repos/octo/kernels/pulls");
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("Bad credentials"), std::string::npos);
    EXPECT_EQ(r.error().message.find(token), std::string::npos) << r.error().message;
  }
  // 2. A proposal whose text contains the token (a command pasted with it).
  auto proposal = testing::sample_proposal(repo.base_sha, "// v2 " + token + "\n");
  proposal.reproduce.push_back("GITHUB_TOKEN=" + token + " kgate sweep");
  proposal.iterations[0].reflection += " (token " + token + ")";
  std::unique_ptr<Forge> forge;
  {
    ForgeConfig config{.kind = "github",
                       .github_repo = "octo/kernels",
                       .api_url = github.url(),
                       .git_url = "https://127.0.0.1:1/octo/kernels.git",
                       .repo_dir = repo.work};
    config.client.retry.max_attempts = 1;
    auto made = make_forge(config, [&](const std::string& name) -> std::optional<std::string> {
      if (name == "GITHUB_TOKEN") return token;
      return std::nullopt;
    });
    ASSERT_TRUE(made.ok()) << made.error().message;
    forge = std::move(*made);
  }
  // The push fails (nothing listens), and its error must not leak the token.
  PullRequestPublisher publisher(*forge, repo.work);
  auto failed = publisher.propose(proposal);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().message.find(token), std::string::npos) << failed.error().message;
  // Publish to the local forge and a check run to GitHub with the token in the text.
  LocalForge local(repo.work, repo.work / ".kgate");
  PullRequestPublisher local_publisher(local, repo.work);
  auto created = local_publisher.propose(proposal);
  ASSERT_TRUE(created.ok()) << created.error().message;
  CheckRunReport report{.title = "leak " + token,
                        .conclusion = "success",
                        .summary_markdown = "| a | " + token + " |"};
  report.annotations.push_back({.path = "csrc/rmsnorm.cu", .line = 1, .message = token});
  auto id = forge->start_check(repo.base_sha, "kgate");
  ASSERT_TRUE(id.ok()) << id.error().message;
  ASSERT_TRUE(forge->finish_check(*id, repo.base_sha, report).ok());
  ASSERT_TRUE(local.finish_check("x", repo.base_sha, report).ok());
  std::string log = capture.text();

  EXPECT_EQ(log.find(token), std::string::npos) << log;
  EXPECT_EQ(all_files_under(repo.work / ".kgate").find(token), std::string::npos);
  EXPECT_EQ(testing::git(repo.work, {"log", "-p", "--all"}).find(token), std::string::npos);
  for (const auto& req : github.requests())
    EXPECT_EQ(req.body.find(token), std::string::npos) << req.path << ": " << req.body;
  // The token did travel where it must: the Authorization header.
  bool authorized = false;
  for (const auto& req : github.requests()) authorized |= req.authorization == "token " + token;
  EXPECT_TRUE(authorized);
}

}  // namespace
}  // namespace kgate::bot
