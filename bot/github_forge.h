#pragma once
// The forge on GitHub (or GitHub Enterprise): check runs or commit statuses,
// pull requests, labels and comments through the REST API, branches pushed
// with libgit2 over HTTPS.
//
// Invariant: a check report becomes exactly one completed check run (or one
// final commit status); annotations go out in batches of at most 50, the
// summary within 65535 characters.
#include <memory>
#include <string>

#include "bot/forge.h"
#include "bot/github_client.h"

namespace kgate::bot {

struct GitHubForgeConfig {
  std::string owner;
  std::string repo;
  // Commit statuses instead of check runs: for tokens without checks:write
  // (a personal token cannot create check runs; only Apps and GITHUB_TOKEN can).
  bool use_commit_statuses = false;
  std::string web_url = "https://github.com";  // for file links and the default git URL
  std::string git_url;                         // empty: <web_url>/<owner>/<repo>.git
};

inline constexpr size_t kAnnotationBatch = 50;

class GitHubForge : public Forge {
 public:
  GitHubForge(std::shared_ptr<GitHubClient> client, GitHubForgeConfig config);

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
  Status push_branch(const std::filesystem::path& repo_dir, const std::string& branch) override;
  std::string file_url(const std::string& commit_sha, const std::string& path) const override;

 private:
  std::string repo_path() const { return "/repos/" + config_.owner + "/" + config_.repo; }

  std::shared_ptr<GitHubClient> client_;
  GitHubForgeConfig config_;
};

// GitHub's commit-status state for a check conclusion.
std::string status_state_for(const std::string& conclusion);

}  // namespace kgate::bot
