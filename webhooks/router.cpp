#include "webhooks/router.h"

#include <algorithm>
#include <sstream>

#include "bot/result_marker.h"

namespace kgate::webhooks {
namespace {

const AuthorAssociationPermissions default_permissions;

const PermissionLookup& permissions_of(const RoutingContext& context) {
  return context.permissions ? *context.permissions : default_permissions;
}

bool approved(const RoutingContext& context, const std::string& repository,
              const std::string& sha) {
  return context.is_approved && context.is_approved(repository, sha);
}

std::optional<PullState> known(const RoutingContext& context, const std::string& repository,
                               int64_t number) {
  if (!context.known_pull) return std::nullopt;
  return context.known_pull(repository, number);
}

// Write access, failing closed: an unknown answer is no, with the reason.
struct Access {
  bool write = false;
  std::string why_not;
};
Access write_access(const RoutingContext& context, const std::string& repository,
                    const std::string& user, const std::string& association) {
  const PermissionLookup& permissions = permissions_of(context);
  std::optional<bool> write = permissions.has_write(repository, user, association);
  if (write && *write) return {true, ""};
  if (write) return {false, user + " has no write access to " + repository};
  return {false, permissions.why_unknown(repository, user, association)};
}

Notice waiting_notice(const std::string& repository, int64_t number, const std::string& sha) {
  return {"waiting-for-approval", repository, number, sha,
          "kgate runs code from forks and from authors without write access only after a "
          "maintainer approves this commit: comment `/kgate approve` or add the label "
          "`kgate:approved`. Every new push needs approval again."};
}

JobSpec gate_job(const PullState& pull, std::string reason) {
  return {.kind = JobKind::kGate,
          .repository = pull.repository,
          .pull_number = pull.number,
          .base = pull.base_sha,
          .head = pull.head_sha,
          .reason = std::move(reason)};
}

// Queues a gate for `pull` if it may run; otherwise says it waits.
void gate_or_wait(const PullState& pull, const RoutingContext& context, std::string reason,
                  Routing& out) {
  if (pull.trusted || approved(context, pull.repository, pull.head_sha)) {
    out.jobs.push_back(gate_job(pull, std::move(reason)));
  } else {
    out.notices.push_back(waiting_notice(pull.repository, pull.number, pull.head_sha));
  }
}

void route_pull_request(const WebhookEvent& event, const RoutingContext& context, Routing& out) {
  const PullRequestInfo& pr = *event.pull_request;
  PullState pull{event.repository, pr.number, pr.head_sha, pr.base_sha, pull_request_trusted(pr)};
  const std::string& action = event.action;
  if (action == "closed") {
    out.ignored = "pull request closed";
    return;
  }
  out.pull_update = pull;
  if (action == "opened" || action == "synchronize" || action == "reopened" ||
      action == "ready_for_review") {
    if (pr.draft) {
      out.ignored = "draft pull request; gated when ready for review";
      return;
    }
    gate_or_wait(pull, context, "pull_request " + action, out);
    return;
  }
  if (action == "labeled" &&
      std::find(context.approval_labels.begin(), context.approval_labels.end(), event.label) !=
          context.approval_labels.end()) {
    // Triage access is enough to label: the sender's write access is asked for.
    if (Access access = write_access(context, event.repository, event.sender, ""); !access.write) {
      out.notices.push_back(
          {"command-refused", event.repository, pr.number, pr.head_sha,
           "the approval label added by " + event.sender + " does not approve: " + access.why_not});
      out.ignored = "approval label from a user without write access";
      return;
    }
    out.approvals.push_back({event.repository, pr.number, pr.head_sha, event.sender});
    out.notices.push_back({"approved", event.repository, pr.number, pr.head_sha,
                           "approved by " + event.sender + " for commit " + pr.head_sha});
    if (!pull.trusted && !pr.draft) out.jobs.push_back(gate_job(pull, "approved by label"));
    return;
  }
  out.ignored = "pull_request " + action + " does not start a gate";
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

void route_push(const WebhookEvent& event, const RoutingContext& context, Routing& out) {
  const PushInfo& push = *event.push;
  if (event.default_branch.empty() || push.ref != "refs/heads/" + event.default_branch) {
    out.ignored = "push to " + push.ref + ", not the default branch";
    return;
  }
  if (push.deleted) {
    out.ignored = "default branch deleted";
    return;
  }
  const auto& files = push.changed_files;
  bool manifest_changed =
      std::find(files.begin(), files.end(), context.manifest_file) != files.end();
  for (const KernelFiles& kernel : context.kernels) {
    bool touched = std::any_of(kernel.files.begin(), kernel.files.end(), [&](const std::string& f) {
      return std::find(files.begin(), files.end(), f) != files.end();
    });
    std::string reason = "push " + push.after;
    if (touched) {
      out.jobs.push_back({.kind = JobKind::kOptimize,
                          .repository = event.repository,
                          .head = push.after,
                          .kernel = kernel.name,
                          .reason = reason});
    }
    if (touched || manifest_changed) {
      out.jobs.push_back({.kind = JobKind::kBaseline,
                          .repository = event.repository,
                          .head = push.after,
                          .kernel = kernel.name,
                          .reason = reason});
    }
  }
  if (out.jobs.empty()) out.ignored = "push touches no kernel file";
}

// `/kgate rebase` and `/kgate ignore` on one of kgate's pull requests: the
// kernel comes from the result marker in its description. Whether the pull
// request really is kgate's (its branch is kgate/optimize/<kernel>) the job
// checks on the forge before it touches anything.
void route_bot_command(const WebhookEvent& event, const CommentCommand& command,
                       const RoutingContext& context, const std::string& reason, Routing& out) {
  const CommentInfo& comment = *event.comment;
  const std::string& repo = event.repository;
  int64_t number = comment.issue_number;
  std::optional<std::string> kernel =
      comment.on_pull_request ? bot::result_kernel_in(comment.issue_body) : std::nullopt;
  if (!kernel) {
    out.notices.push_back({"command-refused", repo, number, "",
                           "/kgate " + command.verb +
                               " works on kgate's own pull requests (branches "
                               "kgate/optimize/<kernel>); this is not one"});
    out.ignored = "/kgate " + command.verb + " on a pull request that is not kgate's";
    return;
  }
  bool known_kernel = std::any_of(context.kernels.begin(), context.kernels.end(),
                                  [&](const KernelFiles& k) { return k.name == *kernel; });
  if (!known_kernel && command.verb == "rebase") {
    out.notices.push_back({"command-refused", repo, number, "",
                           "/kgate rebase: kgate.json has no kernel named '" + *kernel +
                               "' any more; close this pull request instead"});
    out.ignored = "unknown kernel";
    return;
  }
  JobSpec job{.kind = command.verb == "rebase" ? JobKind::kRebase : JobKind::kIgnore,
              .repository = repo,
              .pull_number = number,
              .kernel = *kernel,
              .reason = reason,
              .requested_by = comment.author};
  if (job.kind == JobKind::kRebase) job.base = event.default_branch;
  out.jobs.push_back(std::move(job));
}

// `/kgate approve PREFIX` names the head by at least 7 hexadecimal digits of
// its id (git's shortest abbreviation), and only the head: a prefix that also
// starts the base's id is ambiguous. Empty when it names the head.
std::string approval_prefix_problem(const std::string& prefix, const PullState& pull) {
  bool hex = std::all_of(prefix.begin(), prefix.end(),
                         [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
  if (!hex || prefix.size() < 7 || prefix.size() > 40)
    return "/kgate approve: name the head commit by 7 to 40 lowercase hexadecimal digits of its "
           "id, or by nothing (the head is " +
           pull.head_sha + ")";
  if (!starts_with(pull.head_sha, prefix))
    return "/kgate approve " + prefix + " names a commit that is not the head (" + pull.head_sha +
           ")";
  if (starts_with(pull.base_sha, prefix))
    return "/kgate approve " + prefix +
           " is ambiguous: the base commit's id starts with it too; give more digits of " +
           pull.head_sha;
  return "";
}

void route_comment(const WebhookEvent& event, const RoutingContext& context, Routing& out) {
  const CommentInfo& comment = *event.comment;
  if (event.action != "created") {
    out.ignored = "issue_comment " + event.action + " (only new comments carry commands)";
    return;
  }
  auto command = parse_comment_command(comment.body);
  if (!command) {
    out.ignored = "comment has no /kgate command";
    return;
  }
  const std::string& repo = event.repository;
  int64_t number = comment.issue_number;
  if (Access access = write_access(context, repo, comment.author, comment.author_association);
      !access.write) {
    out.notices.push_back({"command-refused", repo, number, "",
                           "/kgate " + command->verb + " needs write access: " + access.why_not});
    out.ignored = "command from a user without write access";
    return;
  }
  std::string reason = "/kgate " + command->verb + " by " + comment.author;
  if (command->verb == "optimize") {
    auto kernel = std::find_if(context.kernels.begin(), context.kernels.end(),
                               [&](const KernelFiles& k) { return k.name == command->argument; });
    if (kernel == context.kernels.end()) {
      std::string names;
      for (const KernelFiles& k : context.kernels) names += (names.empty() ? "" : ", ") + k.name;
      out.notices.push_back({"command-refused", repo, number, "",
                             "/kgate optimize: no kernel named '" + command->argument +
                                 "' in kgate.json (kernels: " + names + ")"});
      out.ignored = "unknown kernel";
      return;
    }
    out.jobs.push_back({.kind = JobKind::kOptimize,
                        .repository = repo,
                        .base = event.default_branch,
                        .kernel = kernel->name,
                        .reason = reason,
                        .requested_by = comment.author});
    return;
  }
  if (command->verb == "rebase" || command->verb == "ignore") {
    route_bot_command(event, *command, context, reason, out);
    return;
  }
  if (command->verb != "rerun" && command->verb != "approve" &&
      command->verb != "accept-regression") {
    out.notices.push_back({"command-refused", repo, number, "",
                           "unknown command /kgate " + command->verb +
                               " (known: optimize <kernel>, rerun, approve, accept-regression, "
                               "rebase, ignore)"});
    out.ignored = "unknown command";
    return;
  }
  if (!comment.on_pull_request) {
    out.ignored = "/kgate " + command->verb + " works on pull requests only";
    return;
  }
  auto pull = known(context, repo, number);
  if (!pull) {
    out.notices.push_back({"unknown-pull-request", repo, number, "",
                           "kgate has not seen this pull request yet; push a commit or reopen it"});
    out.ignored = "pull request not known";
    return;
  }
  if (command->verb == "approve") {
    if (!command->argument.empty()) {
      if (std::string why = approval_prefix_problem(command->argument, *pull); !why.empty()) {
        out.notices.push_back({"command-refused", repo, number, pull->head_sha, why});
        out.ignored = "approval that does not name the head commit";
        return;
      }
    }
    if (approved(context, repo, pull->head_sha)) {
      // A second approval would queue a second gate of the same commit.
      out.ignored = "head commit already approved (/kgate rerun gates it again)";
      return;
    }
    out.approvals.push_back({repo, number, pull->head_sha, comment.author});
    out.notices.push_back({"approved", repo, number, pull->head_sha,
                           "approved by " + comment.author + " for commit " + pull->head_sha});
    if (!pull->trusted) out.jobs.push_back(gate_job(*pull, reason));
    return;
  }
  if (!pull->trusted && !approved(context, repo, pull->head_sha)) {
    out.notices.push_back(waiting_notice(repo, number, pull->head_sha));
    out.ignored = "head commit not approved";
    return;
  }
  JobSpec job = gate_job(*pull, reason);
  if (command->verb == "accept-regression") job.kind = JobKind::kAcceptRegression;
  out.jobs.push_back(job);
}

void route_check_run(const WebhookEvent& event, const RoutingContext& context, Routing& out) {
  const CheckRunInfo& run = *event.check_run;
  if (event.action != "rerequested") {
    out.ignored = "check_run " + event.action;
    return;
  }
  if (!starts_with(run.name, "kgate")) {
    out.ignored = "check run '" + run.name + "' is not kgate's";
    return;
  }
  PullState pull{event.repository, run.pull_number, run.head_sha,
                 run.base_sha.empty() ? event.default_branch : run.base_sha, false};
  std::optional<PullState> seen;
  if (run.pull_number) {
    seen = known(context, event.repository, run.pull_number);
  } else if (context.pull_with_head) {
    // GitHub lists no pull request for a check run on a fork's commit: the
    // pull request is found by its head; a commit kgate knows no pull request
    // of is not trusted (it may be anyone's).
    seen = context.pull_with_head(event.repository, run.head_sha);
    if (seen) {
      pull.number = seen->number;
      pull.base_sha = seen->base_sha;
    }
  }
  if (seen) {
    pull.trusted = seen->trusted && seen->head_sha == run.head_sha;
    if (pull.base_sha.empty()) pull.base_sha = seen->base_sha;
  }
  if (!pull.trusted && !approved(context, event.repository, run.head_sha)) {
    out.notices.push_back(waiting_notice(event.repository, pull.number, run.head_sha));
    out.ignored = "head commit not approved";
    return;
  }
  out.jobs.push_back(gate_job(pull, "check run re-requested by " + event.sender));
}

}  // namespace

std::optional<CommentCommand> parse_comment_command(const std::string& body) {
  std::istringstream lines(body);
  std::string line;
  while (std::getline(lines, line)) {
    size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line.compare(start, 7, "/kgate ") != 0) continue;
    std::istringstream words(line.substr(start + 7));
    CommentCommand command;
    words >> command.verb >> command.argument;
    if (command.verb.empty()) continue;
    return command;
  }
  return std::nullopt;
}

Routing route(const WebhookEvent& event, const RoutingContext& context) {
  Routing out;
  if (event.pull_request && event.name == "pull_request") {
    route_pull_request(event, context, out);
  } else if (event.push && event.name == "push") {
    route_push(event, context, out);
  } else if (event.comment && event.name == "issue_comment") {
    route_comment(event, context, out);
  } else if (event.check_run && event.name == "check_run") {
    route_check_run(event, context, out);
  } else if (event.name == "ping") {
    out.ignored = "ping";
  } else {
    out.ignored = "event '" + event.name + "' is not used by kgate";
  }
  if (out.ignored.empty() && out.jobs.empty() && out.approvals.empty() && out.notices.empty())
    out.ignored = "nothing to do";
  return out;
}

}  // namespace kgate::webhooks
