#pragma once
// Routing: a pure function from a parsed delivery (and what the service
// already knows: pull requests seen, approvals, the manifest's kernel files)
// to the jobs to queue, the approvals to record and the notices to send.
// It reads nothing else and writes nothing, so it is tested and fuzzed alone.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "webhooks/job.h"
#include "webhooks/trust_policy.h"
#include "webhooks/webhook_event.h"

namespace kgate::webhooks {

// The files that make up one kernel (sources and reference), relative to the repository root.
struct KernelFiles {
  std::string name;
  std::vector<std::string> files;
};

// What the service remembers of a pull request (from its pull_request events).
struct PullState {
  std::string repository;
  int64_t number = 0;
  std::string head_sha, base_sha;
  bool trusted = false;  // pull_request_trusted(): its head is a branch of the repository
};

struct Approval {
  std::string repository;
  int64_t pull_number = 0;
  std::string head_sha;  // approval holds for this commit only
  std::string by;
};

// Something to tell the pull request's people (a check run or comment, later).
struct Notice {
  std::string kind;  // waiting-for-approval, approved, command-refused, unknown-pull-request, ...
  std::string repository;
  int64_t pull_number = 0;
  std::string head_sha;
  std::string message;
};

struct RoutingContext {
  std::vector<KernelFiles> kernels;
  std::string manifest_file = "kgate.json";  // relative to the repository root
  std::function<std::optional<PullState>(const std::string& repository, int64_t number)> known_pull;
  // The pull request whose known head is `head_sha` (check runs of fork pull
  // requests name none); nullopt when none or several are.
  std::function<std::optional<PullState>(const std::string& repository,
                                         const std::string& head_sha)>
      pull_with_head;
  std::function<bool(const std::string& repository, const std::string& head_sha)> is_approved;
  const PermissionLookup* permissions = nullptr;  // null: AuthorAssociationPermissions
  std::vector<std::string> approval_labels = {"kgate:approved"};
};

struct Routing {
  std::vector<JobSpec> jobs;
  std::optional<PullState> pull_update;  // remember this pull request's head
  std::vector<Approval> approvals;
  std::vector<Notice> notices;
  std::string ignored;  // non-empty when nothing is done, and why
};

// A "/kgate <verb> [argument]" line in a comment; the first such line counts.
struct CommentCommand {
  std::string verb;  // optimize, rerun, approve, accept-regression, rebase, ignore
  std::string argument;
};
std::optional<CommentCommand> parse_comment_command(const std::string& body);

Routing route(const WebhookEvent& event, const RoutingContext& context);

}  // namespace kgate::webhooks
