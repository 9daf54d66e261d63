// The second half of the split GitHub Actions jobs, with the real kgate
// binary against the GitHub double and a bare repository standing in for
// GitHub's git: `kgate publish` opens the pull request from a detached HEAD
// (what actions/checkout of a commit leaves) with the forge chosen from
// $GITHUB_REPOSITORY, and appends baselines to kgate/baselines;
// `kgate gate --check-report` + `kgate publish-check` complete the check run
// the service queued on the pull request's head, linked to the run.
#include <gtest/gtest.h>
#include <httplib.h>

#include <cstdlib>

#include <nlohmann/json.hpp>

#include "bot/bot_test_repo.h"
#include "bot/fake_github.h"
#include "support/test_support.h"

namespace kgate {
namespace {

using nlohmann::json;
using testing::git;
using testing::run_kgate;

const std::string kToken = "ghp_actionsPublishToken0123456789";

// The environment of a step in GitHub Actions, for the duration of a test.
class ActionsEnv {
 public:
  ActionsEnv(const std::string& api, const std::string& server) {
    set("GITHUB_TOKEN", kToken);
    set("GITHUB_REPOSITORY", "octo/kernels");
    set("GITHUB_API_URL", api);
    set("GITHUB_SERVER_URL", server);
  }
  ~ActionsEnv() {
    for (const auto& name : names_) unsetenv(name.c_str());
  }
  void set(const std::string& name, const std::string& value) {
    setenv(name.c_str(), value.c_str(), 1);
    names_.push_back(name);
  }

 private:
  std::vector<std::string> names_;
};

json host_proposal(const std::string& source_text) {
  return {{"version", 1},
          {"kernel", "rmsnorm"},
          {"backend", "host"},
          {"manifest", "/gone/with/the/runner/kgate.json"},
          {"source", "host/rmsnorm.cpp"},
          {"agent", "tuner"},
          {"seed", 1},
          {"candidate",
           {{"source_text", source_text},
            {"source_changed", true},
            {"tunables", json::object()},
            {"tunable_defaults_changed", json::object()},
            {"flags", json::array()}}},
          {"speedup_geomean", 1.2},
          {"device", {{"name", "NVIDIA H100 80GB HBM3"}}},
          {"shapes",
           {{{"shape", "decode-b64"},
             {"phase", "decode"},
             {"before_s", 10e-6},
             {"after_s", 8e-6},
             {"ratio", 0.8},
             {"ratio_ci", {0.78, 0.82}},
             {"verdict", "faster"},
             {"max_abs_error", 1e-4}}}},
          {"reflections",
           {{{"iteration", 1},
             {"outcome", "accepted"},
             {"plan", {{"bottleneck", "@octocat look"}, {"change", "wider loads"}}},
             {"reflection", "ping @octocat, closes #1"}}}}};
}

TEST(ActionsPublish, PublishOpensThePullRequestFromADetachedHeadAndKeepsBaselines) {
  testing::TempDir tmp;
  testing::FakeGitHub github("octo", "kernels", kToken);
  // GitHub's git: <server>/octo/kernels.git.
  auto server = tmp / "server";
  auto bare = server / "octo" / "kernels.git";
  std::filesystem::create_directories(bare.parent_path());
  git(tmp.path(), {"init", "-q", "--bare", bare.string()});
  auto seed = tmp / "seed";
  std::filesystem::copy(testing::example_dir(), seed, std::filesystem::copy_options::recursive);
  git(seed, {"init", "-q"});
  git(seed, {"add", "-A"});
  git(seed, {"commit", "-q", "-m", "kernels"});
  const std::string measured = git(seed, {"rev-parse", "HEAD"});
  git(seed, {"push", "-q", bare.string(), "main"});

  // What actions/checkout of a commit leaves: a detached HEAD, no local main.
  auto work = tmp / "work";
  git(tmp.path(), {"clone", "-q", bare.string(), work.string()});
  git(work, {"checkout", "-q", "--detach", measured});
  git(work, {"branch", "-q", "-D", "main"});
  testing::write(work / "out/state/proposals/rmsnorm.json",
                 host_proposal("// rmsnorm, faster\n").dump(2));
  testing::write(work / "out/baselines/nvidia-h100/rmsnorm.json", "{\"history\":[]}\n");

  ActionsEnv env(github.url(), "file://" + server.string());
  // Without a branch to target, a detached HEAD is refused with what to do.
  auto refused =
      run_kgate({"publish", "--repo", work.string(), "--state-dir", (work / "out/state").string()});
  EXPECT_EQ(refused.exit_code, 3) << refused.err;
  EXPECT_NE(refused.err.find("--base-branch"), std::string::npos) << refused.err;
  EXPECT_TRUE(github.pulls().empty());

  // The forge is GitHub because GITHUB_REPOSITORY names it (no --forge).
  auto published = run_kgate({"publish", "--repo", work.string(), "--state-dir",
                              (work / "out/state").string(), "--base-branch", "main", "--base-rev",
                              "HEAD", "--baselines", (work / "out/baselines").string()});
  ASSERT_EQ(published.exit_code, 0) << published.out << published.err;
  EXPECT_NE(published.err.find("GitHub octo/kernels"), std::string::npos) << published.err;
  auto pulls = github.pulls();
  ASSERT_EQ(pulls.size(), 1u);
  EXPECT_EQ(pulls[0]["base"]["ref"], "main");
  EXPECT_EQ(pulls[0]["head"]["ref"], "kgate/optimize/rmsnorm");
  const std::string body = pulls[0]["body"];
  EXPECT_EQ(body.find("@octocat"), std::string::npos);
  EXPECT_EQ(body.find("#1"), std::string::npos);
  EXPECT_NE(body.find("`/kgate ignore`"), std::string::npos);
  auto on_server = [&](const std::vector<std::string>& args) {
    std::vector<std::string> all = {"--git-dir", bare.string()};
    all.insert(all.end(), args.begin(), args.end());
    return git(tmp.path(), all);
  };
  EXPECT_EQ(on_server({"rev-parse", "kgate/optimize/rmsnorm^"}), measured);
  EXPECT_EQ(on_server({"log", "-1", "--format=%an <%ae>", "kgate/optimize/rmsnorm"}),
            "kgate[bot] <190874231+kgate[bot]@users.noreply.github.com>");
  EXPECT_EQ(on_server({"show", "kgate/optimize/rmsnorm:host/rmsnorm.cpp"}), "// rmsnorm, faster");
  EXPECT_EQ(on_server({"ls-tree", "-r", "--name-only", "kgate/baselines"}),
            "baselines/nvidia-h100/rmsnorm.json");

  // In Actions the workflow's ref names the branch when --base-branch is left out.
  env.set("GITHUB_REF_TYPE", "branch");
  env.set("GITHUB_REF_NAME", "main");
  auto again = run_kgate({"publish", "--repo", work.string(), "--state-dir",
                          (work / "out/state").string(), "--base-rev", "HEAD"});
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("unchanged #1"), std::string::npos) << again.out;
  EXPECT_EQ(github.pulls().size(), 1u);
}

TEST(ActionsPublish, PublishCheckCompletesTheQueuedCheckRunOnTheHead) {
  testing::TempDir tmp;
  testing::FakeGitHub github("octo", "kernels", kToken);
  const std::string head(40, 'e');
  // The service queued the check run when it dispatched the workflow.
  httplib::Client client(github.url());
  auto queued = client.Post(
      "/repos/octo/kernels/check-runs", {{"Authorization", "token " + kToken}},
      json{{"name", "kgate"}, {"head_sha", head}, {"status", "queued"}}.dump(), "application/json");
  ASSERT_TRUE(queued);
  ASSERT_EQ(queued->status, 201);
  const long long id = json::parse(queued->body)["id"];

  // A real gate's report (nothing changed: a pass), and a failing one of another GPU model.
  auto repo = tmp / "repo";
  std::filesystem::copy(testing::example_dir(), repo, std::filesystem::copy_options::recursive);
  git(repo, {"init", "-q"});
  git(repo, {"add", "-A"});
  git(repo, {"commit", "-q", "-m", "kernels"});
  auto reports = tmp / "kgate-reports";
  auto gate =
      run_kgate({"gate", "--repo", repo.string(), "--base", "HEAD", "--head", "HEAD", "--backend",
                 "host", "--check-report",
                 (reports / "kgate-check-gpu-h100" / "kgate-check-gpu-h100.json").string()});
  ASSERT_EQ(gate.exit_code, 0) << gate.err;
  testing::write(
      reports / "kgate-check-gpu-a100" / "kgate-check-gpu-a100.json",
      json{{"name", "kgate"},
           {"title", "kgate: 1 failure"},
           {"conclusion", "failure"},
           {"summary", "| rmsnorm | slower |"},
           {"annotations", {{{"path", "host/rmsnorm.cpp"}, {"line", 3}, {"message", "slower"}}}}}
          .dump());
  testing::write(reports / "kgate-check-gpu-a100" / "kgate-gate-gpu-a100.json", "{\"kernels\":[]}");

  ActionsEnv env(github.url(), "https://github.com");
  const std::string details = "https://github.com/octo/kernels/actions/runs/99";
  auto published = run_kgate({"publish-check", "--forge", "github", "--head", head, "--check-run",
                              std::to_string(id), "--report", reports.string(), "--job-result",
                              "success", "--details-url", details});
  ASSERT_EQ(published.exit_code, 0) << published.out << published.err;
  json run = github.check_run(id);
  EXPECT_EQ(run["status"], "completed");
  EXPECT_EQ(run["conclusion"], "failure");  // the worst of the two GPU models
  EXPECT_EQ(run["details_url"], details);
  EXPECT_EQ(run["head_sha"], head);
  std::string title = run["output_title"];
  EXPECT_NE(title.find("[gpu-a100]"), std::string::npos) << title;
  EXPECT_NE(title.find("no kernel changed [gpu-h100]"), std::string::npos) << title;
  EXPECT_EQ(run["annotations"].size(), 1u);
  EXPECT_EQ(github.check_runs().size(), 1u);  // completed, not a second one

  // A gate job that left no report: cancelled stays cancelled; anything else fails.
  auto empty = tmp / "none";
  std::filesystem::create_directories(empty);
  for (const auto& [result, conclusion] : std::vector<std::pair<std::string, std::string>>{
           {"cancelled", "cancelled"}, {"failure", "failure"}, {"success", "failure"}}) {
    auto out = run_kgate({"publish-check", "--forge", "github", "--head", head, "--report",
                          empty.string(), "--job-result", result});
    ASSERT_EQ(out.exit_code, 0) << out.err;
    EXPECT_EQ(github.check_runs().back()["conclusion"], conclusion) << result;
  }
}

}  // namespace
}  // namespace kgate
