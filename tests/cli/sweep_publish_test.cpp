// `kgate sweep` and `kgate optimize` hand accepted results to the bot: on a
// real temporary git repository with the example host kernels, with nothing
// configured, the sweep ends with pull requests on the local forge; a second
// sweep updates rather than duplicates; a forge that fails loses nothing.
#include <gtest/gtest.h>
#include <httplib.h>
#include <chrono>

#include <cstdlib>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "bot/bot_test_repo.h"
#include "support/test_support.h"

namespace kgate {
namespace {

using testing::git;
using testing::run_kgate;

// The example (or a fixture) committed on main of a fresh repository.
std::filesystem::path git_copy(const testing::TempDir& tmp, const std::filesystem::path& from) {
  std::filesystem::path work = tmp / "work";
  std::filesystem::copy(from, work, std::filesystem::copy_options::recursive);
  git(work, {"init", "-q"});
  git(work, {"add", "-A"});
  git(work, {"commit", "-q", "-m", "kernels"});
  return work;
}

nlohmann::json local_prs(const std::filesystem::path& work) {
  auto out = run_kgate({"prs", "--repo", work.string(), "--all", "--json"});
  EXPECT_EQ(out.exit_code, 0) << out.err;
  return out.exit_code == 0 ? nlohmann::json::parse(out.out) : nlohmann::json::array();
}

// Small budgets. The fixture is a float32 rmsnorm whose ACCUMULATORS tunable
// really changes its speed (the half-precision example kernels on the host are
// bound by half conversion, so whether the tuner finds a gain there depends on
// the machine's load: not something a test may rest on).
std::vector<std::string> sweep_args(const std::filesystem::path& work) {
  return {"sweep", "--repo",        work.string(), "--backend", "host",    "--max-iters",
          "4",     "--patience",    "3",           "--shapes",  "rows-64", "--shape-budget-s",
          "0.4",   "--no-baselines"};
}

TEST(SweepPublish, OpensPullRequestsOnTheLocalForgeAndUpdatesThemInPlace) {
  testing::TempDir tmp;
  auto work = git_copy(tmp, testing::fixtures_dir() / "agent" / "sumsq");
  const auto args = sweep_args(work);
  auto first = run_kgate(args, "", 900);
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  EXPECT_NE(first.err.find("publishing accepted results through the local forge"),
            std::string::npos)
      << first.err;
  auto prs = local_prs(work);
  ASSERT_GE(prs.size(), 1u) << "no kernel improved:\n" << first.out << first.err;
  for (const auto& pr : prs) {
    const std::string branch = pr["branch"];
    ASSERT_EQ(branch.rfind("kgate/optimize/", 0), 0u) << branch;
    const std::string kernel = branch.substr(15);
    EXPECT_NE(first.out.find("created #" + std::to_string(pr["number"].get<int>()) + " " + branch),
              std::string::npos)
        << first.out;
    EXPECT_EQ(pr["state"], "open");
    EXPECT_EQ(pr["base"], "main");
    EXPECT_EQ(pr["labels"], nlohmann::json({"kgate", "performance"}));
    EXPECT_EQ(git(work, {"log", "-1", "--format=%an", branch}), "kgate[bot]");
    EXPECT_EQ(git(work, {"rev-parse", branch + "^"}), git(work, {"rev-parse", "main"}));
    // The tuner changes tunable defaults: kgate.json changes; nothing of
    // kgate's own (a chart) is committed to land on main with a merge.
    std::string files = git(work, {"diff", "--name-only", "main", branch});
    EXPECT_EQ(files.find(".kgate/"), std::string::npos) << files;
    EXPECT_NE(files.find("kgate.json"), std::string::npos) << files;
    auto shown = run_kgate(
        {"prs", "--repo", work.string(), "--show", std::to_string(pr["number"].get<int>())});
    ASSERT_EQ(shown.exit_code, 0) << shown.err;
    for (const char* section :
         {"| shape | phase | before | after | change [95% CI] | max error |",
          "| rows-64 | decode |", "```mermaid", "## Profile", "## Roofline",
          "<details><summary>Iteration 1", "**Reflection.**", "## Reproduce", "## Environment",
          "| GPU | host: ", "| kgate |", "<!-- kgate:result="})
      EXPECT_NE(shown.out.find(section), std::string::npos) << section << "\n" << shown.out;
  }
  // The working tree is untouched: branches are written by libgit2 beside it.
  EXPECT_EQ(git(work, {"status", "--porcelain", "--untracked-files=no"}), "");

  // main moves on (not the kernels); a second sweep's results are measured
  // against the new base: each open pull request is updated in place (or,
  // where the kernel found nothing this time, left open); none is duplicated.
  testing::write(work / "NOTES.md", "notes\n");
  git(work, {"add", "NOTES.md"});
  git(work, {"commit", "-q", "-m", "notes"});
  auto second = run_kgate(args, "", 900);
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  auto again = local_prs(work);
  std::map<std::string, int> per_branch;
  for (const auto& pr : again) ++per_branch[pr["branch"].get<std::string>()];
  for (const auto& [branch, count] : per_branch) EXPECT_EQ(count, 1) << branch << again.dump(2);
  int updated = 0;
  for (const auto& pr : prs) {
    const std::string branch = pr["branch"], number = std::to_string(pr["number"].get<int>());
    EXPECT_EQ(second.out.find("created #" + number + " "), std::string::npos) << second.out;
    if (second.out.find("updated #" + number + " " + branch) == std::string::npos) continue;
    ++updated;
    EXPECT_EQ(git(work, {"rev-parse", branch + "^"}), git(work, {"rev-parse", "main"}));
    auto shown = run_kgate({"prs", "--repo", work.string(), "--show", number});
    EXPECT_NE(shown.out.find("kgate updated this pull request"), std::string::npos) << shown.out;
  }
  for (const auto& pr : again) EXPECT_EQ(pr["state"], "open") << again.dump(2);
  std::printf("second sweep updated %d of %zu pull requests\n", updated, prs.size());
}

// A GitHub that refuses every request, like one with a revoked token.
class RefusingGitHub {
 public:
  RefusingGitHub() {
    server_.set_logger([this](const httplib::Request& req, const httplib::Response&) {
      auth_seen_ |= req.get_header_value("Authorization").find(kToken) != std::string::npos;
    });
    server_.set_error_handler([](const httplib::Request&, httplib::Response& res) {
      res.status = 401;
      res.set_content(
          R"({"message":"Bad credentials","documentation_url":"https://docs.github.com/rest"})",
          "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~RefusingGitHub() {
    server_.stop();
    thread_.join();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  bool auth_seen() const { return auth_seen_; }
  static constexpr const char* kToken = "ghp_kgateTestToken0123456789abcdefABCDEF";

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  bool auth_seen_ = false;
};

TEST(SweepPublish, AFailedPublicationKeepsTheProposalAndSaysInfrastructure) {
  testing::TempDir tmp;
  auto work = git_copy(tmp, testing::fixtures_dir() / "agent" / "sumsq");
  RefusingGitHub github;
  setenv("GITHUB_TOKEN", RefusingGitHub::kToken, 1);
  auto out =
      run_kgate({"optimize", "rmsnorm_f32", "--repo", work.string(), "--backend", "host",
                 "--max-iters", "3", "--patience", "2", "--shapes", "rows-64", "--forge", "github",
                 "--github-repo", "octo/kernels", "--github-api-url", github.url()},
                "", 600);
  unsetenv("GITHUB_TOKEN");
  const auto proposal = work / ".kgate" / "proposals" / "rmsnorm_f32.json";
  ASSERT_TRUE(std::filesystem::exists(proposal)) << "the tuner found nothing to propose:\n"
                                                 << out.out << out.err;
  EXPECT_EQ(out.exit_code, 3) << out.out << out.err;
  EXPECT_TRUE(github.auth_seen());
  EXPECT_NE(out.err.find("the pull request was not published"), std::string::npos) << out.err;
  EXPECT_NE(out.err.find("Bad credentials"), std::string::npos) << out.err;
  EXPECT_NE(out.err.find("The proposal is kept in " + proposal.string()), std::string::npos)
      << out.err;
  EXPECT_NE(out.out.find("pull request: publish failed (proposal kept)"), std::string::npos)
      << out.out;
  EXPECT_EQ((out.out + out.err).find(RefusingGitHub::kToken), std::string::npos);
  EXPECT_EQ(git(work, {"branch", "--list", "kgate/*"}).find("kgate/optimize"), std::string::npos)
      << "nothing is pushed before the forge answers";
}

TEST(SweepPublish, ForgeProblemsAreFoundBeforeAnyEpisode) {
  testing::TempDir tmp;
  auto work = git_copy(tmp, testing::fixtures_dir() / "agent" / "sumsq");
  unsetenv("GITHUB_TOKEN");
  unsetenv("GH_TOKEN");
  auto out = run_kgate({"sweep", "--repo", work.string(), "--backend", "host", "--forge", "github",
                        "--github-repo", "octo/kernels"});
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_NE(out.err.find("GITHUB_TOKEN"), std::string::npos) << out.err;
  EXPECT_FALSE(std::filesystem::exists(work / ".kgate" / "episodes"));

  // Not a git repository: with nothing configured, proposals only, and a note.
  testing::TempDir plain;
  std::filesystem::copy(testing::fixtures_dir() / "agent" / "sumsq", plain / "k",
                        std::filesystem::copy_options::recursive);
  auto asked = run_kgate({"sweep", "--repo", (plain / "k").string(), "--backend", "host", "--forge",
                          "local", "--no-baselines"});
  EXPECT_EQ(asked.exit_code, 2) << asked.err;
  EXPECT_NE(asked.err.find("is not inside a git repository"), std::string::npos) << asked.err;
}

}  // namespace
}  // namespace kgate
