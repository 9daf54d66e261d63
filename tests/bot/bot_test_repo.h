#pragma once
// A real git repository for the bot's tests: one kernel source committed on
// main, and a bare repository to push to over file://.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bot/pull_request_proposal.h"
#include "core/subprocess.h"
#include "support/test_support.h"

namespace kgate::testing {

inline std::string git(const std::filesystem::path& dir, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"git",
                                   "-C",
                                   dir.string(),
                                   "-c",
                                   "user.name=Test",
                                   "-c",
                                   "user.email=test@example.com",
                                   "-c",
                                   "init.defaultBranch=main"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = run_command(argv);
  EXPECT_TRUE(r.ok() && r->succeeded())
      << "git " << args.front() << ": " << (r.ok() ? r->err : r.error().message);
  if (!r.ok()) return "";
  std::string out = r->out;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

struct BotRepo {
  TempDir tmp;
  std::filesystem::path work = tmp / "work";
  std::filesystem::path bare = tmp / "origin.git";
  std::string base_sha;

  BotRepo() {
    std::filesystem::create_directories(work);
    git(work, {"init", "-q"});
    write(work / "csrc/rmsnorm.cu", "// rmsnorm v1\n__global__ void rmsnorm() {}\n");
    write(work / "README.md", "kernels\n");
    git(work, {"add", "-A"});
    git(work, {"commit", "-q", "-m", "base"});
    base_sha = git(work, {"rev-parse", "HEAD"});
    git(tmp.path(), {"init", "-q", "--bare", bare.string()});
  }
  std::string bare_url() const { return "file://" + bare.string(); }
};

inline bot::PullRequestProposal sample_proposal(const std::string& base_sha,
                                                const std::string& candidate) {
  bot::PullRequestProposal p;
  p.kernel = "rmsnorm";
  p.source_path = "csrc/rmsnorm.cu";
  p.candidate_source = candidate;
  p.base_branch = "main";
  p.base_rev = base_sha;
  p.gpu = "NVIDIA H100 80GB HBM3";
  p.speedup = 1.31;
  p.shapes = {{"decode-b1", "decode", 12.0e-6, 9.0e-6, -0.25, -0.27, -0.22, 3e-4, "faster"},
              {"prefill-8k", "prefill", 410e-6, 318e-6, -0.224, -0.23, -0.21, 2e-4, "faster"},
              {"odd|3x4097", "edge", 8e-6, 8.1e-6, 0.012, -0.01, 0.03, 1e-4, "same"}};
  p.profile_before = "achieved bandwidth 1.1 TB/s (33% of peak)\nregisters/thread 40";
  p.profile_after = "achieved bandwidth 2.4 TB/s (72% of peak)\nregisters/thread 48";
  p.roofline = "memory-bound: arithmetic intensity 0.6 FLOP/B, at 72% of the bandwidth roof";
  p.iterations = {
      {"Loads are scalar; use 128-bit vector loads.", "Bandwidth doubled as expected.",
       "accepted, -22%"},
      {"Unroll the reduction.", "No change: the reduction is not the bottleneck.", "same"}};
  p.reproduce = {"kgate gate --base " + base_sha.substr(0, 12) + " --head kgate/optimize/rmsnorm"};
  p.environment = {{"GPU", p.gpu}, {"driver", "580.65"}, {"CUDA", "13.0"}, {"kgate", "0.1.0"}};
  return p;
}

}  // namespace kgate::testing
