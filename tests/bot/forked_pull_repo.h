#pragma once
// Real repositories for a pull request from a fork: a bare "origin" (the base
// repository on GitHub) holding main and refs/pull/7/head, a clone of origin
// (which, like any clone, did not fetch refs/pull/*), and the fork.
#include "bot_test_repo.h"
#include "gate/pull_head_fetch.h"

namespace kgate::testing {

struct ForkedPull {
  TempDir tmp;
  std::filesystem::path origin = tmp / "origin.git";
  std::filesystem::path fork = tmp / "fork";
  std::filesystem::path clone = tmp / "clone";
  std::string base_sha, head_sha;

  ForkedPull() {
    std::filesystem::path seed = tmp / "seed";
    std::filesystem::create_directories(seed);
    git(seed, {"init", "-q"});
    write(seed / "csrc/rmsnorm.cu", "// v1\n");
    git(seed, {"add", "-A"});
    git(seed, {"commit", "-q", "-m", "base"});
    base_sha = git(seed, {"rev-parse", "HEAD"});
    git(tmp.path(), {"init", "-q", "--bare", origin.string()});
    git(seed, {"push", "-q", origin.string(), "main"});
    git(tmp.path(), {"clone", "-q", origin.string(), clone.string()});
    // The contributor's fork: a commit GitHub exposes as refs/pull/7/head on the base repository.
    git(tmp.path(), {"clone", "-q", origin.string(), fork.string()});
    head_sha = push_fork_commit("// v2 from a fork\n");
  }
  std::string push_fork_commit(const std::string& text) {
    write(fork / "csrc/rmsnorm.cu", text);
    git(fork, {"commit", "-q", "-am", "fork change"});
    git(fork, {"push", "-q", "-f", origin.string(), "HEAD:refs/pull/7/head"});
    return git(fork, {"rev-parse", "HEAD"});
  }
  bool clone_has(const std::string& sha) {
    auto r = run_command({"git", "-C", clone.string(), "cat-file", "-e", sha + "^{commit}"});
    return r.ok() && r->succeeded();
  }
  PullHeadRequest request(std::string head) const {
    return {.repo_dir = clone, .pull_number = 7, .head_sha = std::move(head), .base_sha = base_sha};
  }
};

}  // namespace kgate::testing
