#pragma once
// A GitHub webhook delivery reduced to the fields kgate routes on. Parsing
// never throws: a body that is not a JSON object, or a known event whose
// required fields are missing or of the wrong type, is a bad_input error.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace kgate::webhooks {

struct PullRequestInfo {
  int64_t number = 0;
  std::string head_sha, base_sha;
  std::string head_ref, base_ref;
  std::string head_repo;  // full name; empty when the fork was deleted
  std::string base_repo;
  std::string author;
  std::string author_association;  // OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, NONE, ...
  bool draft = false;
  // Code from another repository (a fork), or from a head repository that no longer exists.
  bool from_fork() const { return head_repo.empty() || head_repo != base_repo; }
};

struct PushInfo {
  std::string ref;  // refs/heads/main
  std::string before, after;
  bool deleted = false;
  std::vector<std::string> changed_files;  // added, modified and removed, without duplicates
};

struct CommentInfo {
  int64_t issue_number = 0;
  bool on_pull_request = false;
  std::string body;
  std::string author;
  std::string author_association;
  std::string issue_body;  // the pull request's description (kgate's carry a result marker)
};

struct CheckRunInfo {
  std::string name;
  std::string head_sha;
  int64_t pull_number = 0;  // 0 when the check run names no pull request
  std::string base_sha;
};

struct WebhookEvent {
  std::string name;            // X-GitHub-Event: pull_request, push, ...
  std::string action;          // empty for events without one (push)
  std::string repository;      // owner/name
  std::string default_branch;  // from repository.default_branch
  std::string sender;
  int64_t installation_id = 0;  // GitHub App installations only
  std::optional<PullRequestInfo> pull_request;
  std::string label;  // pull_request labeled/unlabeled
  std::optional<PushInfo> push;
  std::optional<CommentInfo> comment;
  std::optional<CheckRunInfo> check_run;
};

// A commit id as GitHub sends it: 40 lowercase hexadecimal digits.
bool is_commit_id(std::string_view text);

// Parses the raw body of a delivery of event `name`. Events kgate does not
// route are parsed only for the common fields.
Result<WebhookEvent> parse_webhook_event(std::string_view name, std::string_view body);

}  // namespace kgate::webhooks
