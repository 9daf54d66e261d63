#pragma once
// The forge that needs nothing outside: branches stay in the local
// repository; pull requests, check results, statuses and comments are files
// under the state directory (default <repo>/.kgate):
//   pulls/<n>.json  pulls/<n>.md           one pull request: data + readable text
//   checks/<sha12>-<name>.json / .md        one check run
//   statuses/<sha12>-<context>.json         one commit status
// `kgate prs` lists pulls/.
//
// Invariant: pull request numbers are unique and increasing; each file is
// written atomically (write_file_atomic), under a lock file, so concurrent
// kgate processes never hand out the same number.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "bot/forge.h"
#include "core/state_dir.h"

namespace kgate::bot {

class LocalForge : public Forge {
 public:
  LocalForge(std::filesystem::path repo_dir, std::filesystem::path state_dir);

  std::string describe() const override;
  Result<std::string> start_check(const std::string& head_sha, const std::string& name) override;
  Status finish_check(const std::string& check_id, const std::string& head_sha,
                      const CheckRunReport& report) override;
  Status set_commit_status(const std::string& sha, const CommitStatus& status) override;
  Result<std::vector<PullRequest>> pull_requests_for_branch(const std::string& branch) override;
  Result<PullRequest> create_pull_request(const PullRequestDraft& draft) override;
  Status update_pull_request(int number, const std::string& title,
                             const std::string& body) override;
  Status close_pull_request(int number) override;
  Status add_labels(int number, const std::vector<std::string>& labels) override;
  Status upsert_comment(int number, const std::string& marker, const std::string& body) override;
  Result<BotIdentity> identity() override { return BotIdentity{}; }
  Result<std::optional<std::string>> branch_tip(const std::filesystem::path& repo_dir,
                                                const std::string& branch) override;
  Status push_branch(const std::filesystem::path& repo_dir, const std::string& branch,
                     bool force = true) override;

  // Every pull request, lowest number first (for `kgate prs`).
  Result<std::vector<PullRequest>> all_pull_requests() const;
  // The comments of a pull request, oldest first.
  Result<std::vector<std::string>> comments(int number) const;
  const std::filesystem::path& state_dir() const { return state_dir_; }

 private:
  Result<nlohmann::json> load_pull(int number) const;
  Status save_pull(const nlohmann::json& pull);

  std::filesystem::path repo_dir_;
  std::filesystem::path state_dir_;
};

}  // namespace kgate::bot
