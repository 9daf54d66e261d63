#pragma once
// Where kgate publishes: a forge holds branches, pull requests, check
// results and comments. Two implementations share this interface:
// GitHubForge (REST) and LocalForge (files under the state directory), so
// every publishing path runs without GitHub too.
//
// Invariant for implementations: every string they write or return has
// passed through redact(); no call creates a second open pull request for a
// branch that has one (the publisher relies on pull_requests_for_branch()).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bot/bot_identity.h"
#include "bot/check_run_report.h"
#include "core/status.h"

namespace kgate::bot {

struct PullRequest {
  int number = 0;
  std::string state;  // "open" or "closed"
  bool merged = false;
  std::string head_branch;
  std::string base_branch;
  std::string title;
  std::string body;
  std::string url;  // web address, or the Markdown file for the local forge
  std::vector<std::string> labels;
};

struct PullRequestDraft {
  std::string head_branch;
  std::string base_branch;
  std::string title;
  std::string body;
};

struct CommitStatus {
  std::string state;  // error, failure, pending, success
  std::string target_url;
  std::string description;  // at most 140 characters on GitHub
  std::string context = "kgate";
};

class Forge {
 public:
  virtual ~Forge() = default;
  virtual std::string describe() const = 0;  // "local forge (.kgate)", "GitHub octo/repo"

  // Check runs: started in progress, finished with a report. The id is the
  // forge's own; the head SHA is passed again so a forge that only has
  // commit statuses can use it.
  virtual Result<std::string> start_check(const std::string& head_sha, const std::string& name) = 0;
  virtual Status finish_check(const std::string& check_id, const std::string& head_sha,
                              const CheckRunReport& report) = 0;
  virtual Status set_commit_status(const std::string& sha, const CommitStatus& status) = 0;

  // Pull requests. pull_requests_for_branch lists open and closed ones, newest first.
  virtual Result<std::vector<PullRequest>> pull_requests_for_branch(const std::string& branch) = 0;
  virtual Result<PullRequest> create_pull_request(const PullRequestDraft& draft) = 0;
  virtual Status update_pull_request(int number, const std::string& title,
                                     const std::string& body) = 0;
  virtual Status close_pull_request(int number) = 0;
  virtual Status add_labels(int number, const std::vector<std::string>& labels) = 0;
  // kgate's own comment holding `marker` (an HTML comment) is edited, or one
  // is created. Only a comment written by identity().login counts: anyone
  // can paste a marker into a comment of their own.
  virtual Status upsert_comment(int number, const std::string& marker, const std::string& body) = 0;

  // Who kgate is here: the author of its commits and comments.
  virtual Result<BotIdentity> identity() = 0;

  // The forge's copy of `branch`, brought into the clone at `repo_dir`:
  // its tip commit, or nullopt when the forge has no such branch.
  virtual Result<std::optional<std::string>> branch_tip(const std::filesystem::path& repo_dir,
                                                        const std::string& branch) = 0;
  // Makes the local repository's branch visible to the forge (a push for
  // GitHub; nothing for the local forge, whose branches are local). Without
  // `force` only a fast-forward of the forge's branch is accepted.
  virtual Status push_branch(const std::filesystem::path& repo_dir, const std::string& branch,
                             bool force = true) = 0;
};

}  // namespace kgate::bot
