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
  std::string web_url = "https://github.com";  // for the default git URL
  std::string git_url;                         // empty: <web_url>/<owner>/<repo>.git
  // kgate's identity (bot_identity.h): the GitHub App's slug, whose bot user
  // "<slug>[bot]" authors commits and (with App credentials) comments (empty:
  // the App's own, GET /app, with App credentials; else "kgate"); the bot
  // user's id for its no-reply address (0: asked of GET /users/<slug>[bot]);
  // the login comments are written by (empty: "<slug>[bot]" with App
  // credentials, else the token's user from GET /user).
  std::string app_slug;
  int64_t bot_user_id = 0;
  std::string bot_login;
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
  Result<BotIdentity> identity() override;
  Result<std::optional<std::string>> branch_tip(const std::filesystem::path& repo_dir,
                                                const std::string& branch) override;
  Status push_branch(const std::filesystem::path& repo_dir, const std::string& branch,
                     bool force = true) override;

 private:
  std::string repo_path() const { return "/repos/" + config_.owner + "/" + config_.repo; }

  std::shared_ptr<GitHubClient> client_;
  GitHubForgeConfig config_;
  std::optional<BotIdentity> identity_;  // learned once
};

// GitHub's commit-status state for a check conclusion.
std::string status_state_for(const std::string& conclusion);

}  // namespace kgate::bot
