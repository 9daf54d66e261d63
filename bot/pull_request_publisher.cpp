#include "bot/pull_request_publisher.h"

#include "bot/branch_ownership.h"
#include "bot/pull_request_body.h"
#include "core/log.h"
#include "core/number_format.h"
#include "core/redact.h"
#include "gate/git_branch_writer.h"
#include "gate/git_repository.h"

namespace kgate::bot {
namespace {

const std::vector<std::string> kLabels = {"kgate", "performance"};

bool ignored(const PullRequest& pr) {
  return pr.state != "open" && pr.body.find(kIgnoredMarker) != std::string::npos;
}

std::string short_shas(const std::vector<ForeignCommit>& commits) {
  std::string out;
  for (const ForeignCommit& c : commits) out += (out.empty() ? "" : ", ") + c.sha.substr(0, 12);
  return out;
}

}  // namespace

const char* to_string(ProposalAction action) {
  switch (action) {
    case ProposalAction::kCreated:
      return "created";
    case ProposalAction::kUpdated:
      return "updated";
    case ProposalAction::kUnchanged:
      return "unchanged";
    case ProposalAction::kDeclined:
      return "declined";
    case ProposalAction::kAlreadyInBase:
      return "already-in-base";
    case ProposalAction::kBlocked:
      return "blocked";
    case ProposalAction::kIgnored:
      return "ignored";
  }
  return "?";
}

Result<ProposalOutcome> PullRequestPublisher::propose(const PullRequestProposal& p,
                                                      const ProposeOptions& options) {
  if (p.kernel.empty() || p.source_path.empty() || p.base_branch.empty())
    return Error::bad_input(
        "a pull request proposal needs a kernel, a source path and a base branch");
  ProposalOutcome out;
  out.branch = branch_for_kernel(p.kernel);
  const std::string hash = result_hash(p);
  const std::string base_rev = p.base_rev.empty() ? p.base_branch : p.base_rev;

  Result<std::vector<PullRequest>> existing = forge_.pull_requests_for_branch(out.branch);
  if (!existing.ok()) return existing.error();
  if (!existing->empty() && ignored(existing->front()) && !options.unignore) {
    const PullRequest& pr = existing->front();
    out.action = ProposalAction::kIgnored;
    out.number = pr.number;
    out.url = pr.url;
    out.message = p.kernel + " is ignored (`/kgate ignore` on #" + std::to_string(pr.number) +
                  "); comment `/kgate optimize " + p.kernel + "` to have kgate propose it again";
    return out;
  }
  const PullRequest* open = nullptr;
  for (const PullRequest& pr : *existing) {
    if (options.unignore && ignored(pr)) continue;  // asked for again: its result may come back
    std::optional<std::string> h = result_hash_in(pr.body);
    if (pr.state != "open" && h && *h == hash) {
      out.action = ProposalAction::kDeclined;
      out.number = pr.number;
      out.url = pr.url;
      out.message = "#" + std::to_string(pr.number) + " with this result for " + p.kernel +
                    " was closed; kgate does not propose it again";
      return out;
    }
    if (pr.state == "open" && !open) open = &pr;
  }
  // The forge's copy of the branch: whose commits does it hold?
  Result<BotIdentity> me = forge_.identity();
  if (!me.ok()) return me.error();
  Result<std::optional<std::string>> tip = forge_.branch_tip(repo_dir_, out.branch);
  if (!tip.ok()) return tip.error().with_context("reading " + out.branch);
  std::vector<ForeignCommit> foreign;
  std::optional<std::string> last_pushed = open ? result_head_in(open->body) : std::nullopt;
  if (*tip && (!last_pushed || *last_pushed != **tip)) {
    std::vector<std::string> bases = {base_rev};
    if (open)
      if (auto measured = result_base_in(open->body)) bases.push_back(*measured);
    Result<std::vector<ForeignCommit>> found = foreign_commits(repo_dir_, **tip, bases, *me);
    if (!found.ok()) return found.error().with_context("reading " + out.branch);
    foreign = std::move(found.value());
  }
  if (!foreign.empty() && !options.take_over) {
    out.action = ProposalAction::kBlocked;
    const std::string who = describe_authors(foreign);
    out.message = "kgate will not update " + out.branch + ": it has commits by " + who;
    if (open) {
      out.number = open->number;
      out.url = open->url;
      KGATE_RETURN_IF_ERROR(forge_.upsert_comment(
          open->number, kBlockedCommentMarker,
          std::string(kBlockedCommentMarker) +
              "\nkgate will not update this branch because it has commits by " + who +
              "; comment `/kgate rebase` to let kgate take it over.\n\nkgate has a new result "
              "for `" +
              p.kernel + "` (" + format_speedup(p.speedup) + ", result `" + hash +
              "`, measured against `" + base_rev.substr(0, 12) +
              "`). Taking the branch over recreates it from `" + p.base_branch +
              "` without the commits " + short_shas(foreign) + "."));
    }
    return out;
  }
  if (open && result_hash_in(open->body) == hash && foreign.empty()) {
    out.action = ProposalAction::kUnchanged;
    out.number = open->number;
    out.url = open->url;
    out.message = "#" + std::to_string(open->number) + " already proposes this result";
    return out;
  }

  // A candidate the base already has is nothing to propose, and makes an
  // open pull request for this kernel obsolete.
  std::vector<FileChange> changed = {{p.source_path, p.candidate_source}};
  for (const ProposedFile& f : p.other_files) changed.push_back({f.path, f.text});
  auto repo = GitRepository::open(repo_dir_);
  if (!repo.ok()) return repo.error();
  bool in_base = true;
  for (const FileChange& f : changed) {
    Result<std::string> base_text = (*repo)->read_file_at(base_rev, f.path);
    in_base &= base_text.ok() && *base_text == f.content;
  }
  if (in_base) {
    out.action = ProposalAction::kAlreadyInBase;
    if (open) {
      Result<int> closed =
          withdraw(p.kernel, "the base branch (" + base_rev.substr(0, 12) +
                                 ") already contains this version of `" + p.source_path + "`.");
      if (!closed.ok()) return closed.error();
      out.number = *closed;
    }
    out.message = "the base already contains this version of " + p.source_path +
                  (p.other_files.empty() ? "" : " and the files changed with it");
    return out;
  }

  std::vector<FileChange> files;
  for (const FileChange& f : changed) files.push_back({f.path, redact(f.content)});
  std::string message = "kgate: " + p.kernel + " " + format_speedup(p.speedup) + " faster" +
                        (p.gpu.empty() ? "" : " on " + p.gpu) + "\n\nResult " + hash +
                        ", measured against " + base_rev + ".\n";
  Result<BranchCommit> commit =
      write_branch(repo_dir_, base_rev, out.branch, files, redact(message), {me->name, me->email});
  if (!commit.ok()) return commit.error();
  out.commit_sha = commit->commit_sha;
  progress("pushing " + out.branch + " to " + forge_.describe());
  KGATE_RETURN_IF_ERROR(forge_.push_branch(repo_dir_, out.branch));

  const std::string title = pull_request_title(p);
  const std::string body = pull_request_body(p, commit->commit_sha);
  if (open && !foreign.empty())
    KGATE_RETURN_IF_ERROR(
        forge_.upsert_comment(open->number, kBlockedCommentMarker,
                              std::string(kBlockedCommentMarker) +
                                  "\nkgate took this branch over (`/kgate rebase`) "
                                  "and recreated it from `" +
                                  p.base_branch + "`. The commits by " + describe_authors(foreign) +
                                  " are no longer on it: " + short_shas(foreign) + "."));
  if (open) {
    KGATE_RETURN_IF_ERROR(forge_.update_pull_request(open->number, title, body));
    std::string previous = result_hash_in(open->body).value_or("unknown");
    KGATE_RETURN_IF_ERROR(forge_.upsert_comment(
        open->number, kUpdateCommentMarker,
        std::string(kUpdateCommentMarker) +
            "\nkgate updated this pull request with a new candidate (" + format_speedup(p.speedup) +
            ", measured against `" + base_rev.substr(0, 12) + "`); result `" + hash +
            "` replaces `" + previous + "`. The description shows the new evidence."));
    KGATE_RETURN_IF_ERROR(forge_.add_labels(open->number, kLabels));
    out.action = ProposalAction::kUpdated;
    out.number = open->number;
    out.url = open->url;
    out.message = "updated #" + std::to_string(open->number);
    return out;
  }
  Result<PullRequest> created = forge_.create_pull_request(
      {.head_branch = out.branch, .base_branch = p.base_branch, .title = title, .body = body});
  if (!created.ok()) return created.error();
  KGATE_RETURN_IF_ERROR(forge_.add_labels(created->number, kLabels));
  out.action = ProposalAction::kCreated;
  out.number = created->number;
  out.url = created->url;
  out.message = "opened #" + std::to_string(created->number);
  return out;
}

Result<int> PullRequestPublisher::withdraw_if_obsolete(const std::string& kernel,
                                                       const std::string& base_rev,
                                                       const std::vector<std::string>& paths) {
  Result<std::vector<PullRequest>> existing =
      forge_.pull_requests_for_branch(branch_for_kernel(kernel));
  if (!existing.ok()) return existing.error();
  auto repo = GitRepository::open(repo_dir_);
  if (!repo.ok()) return repo.error();
  Result<std::string> now = (*repo)->resolve(base_rev);
  if (!now.ok()) return now.error();
  for (const PullRequest& pr : *existing) {
    if (pr.state != "open") continue;
    std::optional<std::string> measured = result_base_in(pr.body);
    if (!measured) return 0;
    Result<std::string> then = (*repo)->resolve(*measured);
    if (!then.ok() || *then == *now) return 0;
    for (const std::string& path : paths) {
      Result<std::string> before = (*repo)->read_file_at(*then, path);
      Result<std::string> after = (*repo)->read_file_at(*now, path);
      if (before.ok() == after.ok() && (!before.ok() || *before == *after)) continue;
      return withdraw(kernel, "`" + path + "` changed on the base since this was measured (" +
                                  then->substr(0, 12) + " → " + now->substr(0, 12) +
                                  "), and a new run found nothing faster than the new version.");
    }
    return 0;
  }
  return 0;
}

Status PullRequestPublisher::ignore(const std::string& kernel, int number, const std::string& by) {
  Result<std::vector<PullRequest>> existing =
      forge_.pull_requests_for_branch(branch_for_kernel(kernel));
  if (!existing.ok()) return existing.error();
  for (const PullRequest& pr : *existing) {
    if (pr.number != number) continue;
    if (ignored(pr)) return {};  // said twice
    const std::string who = by.empty() ? "someone" : "@" + by;
    KGATE_RETURN_IF_ERROR(forge_.upsert_comment(
        number, kIgnoreCommentMarker,
        std::string(kIgnoreCommentMarker) + "\nkgate closed this pull request because " + who +
            " commented `/kgate ignore`: it proposes nothing for `" + kernel +
            "` again until someone comments `/kgate optimize " + kernel + "`."));
    KGATE_RETURN_IF_ERROR(
        forge_.update_pull_request(number, pr.title, pr.body + "\n" + kIgnoredMarker + "\n"));
    KGATE_RETURN_IF_ERROR(forge_.add_labels(number, {kIgnoredLabel}));
    if (pr.state == "open") KGATE_RETURN_IF_ERROR(forge_.close_pull_request(number));
    return {};
  }
  return Error::bad_input("#" + std::to_string(number) + " is not kgate's pull request for `" +
                          kernel + "` (branch " + branch_for_kernel(kernel) + ")");
}

Result<int> PullRequestPublisher::withdraw(const std::string& kernel, const std::string& reason) {
  Result<std::vector<PullRequest>> existing =
      forge_.pull_requests_for_branch(branch_for_kernel(kernel));
  if (!existing.ok()) return existing.error();
  for (const PullRequest& pr : *existing) {
    if (pr.state != "open") continue;
    KGATE_RETURN_IF_ERROR(forge_.upsert_comment(
        pr.number, kCloseCommentMarker,
        std::string(kCloseCommentMarker) + "\nkgate closed this pull request: " + reason +
            "\n\nkgate will not reopen it for the same result."));
    KGATE_RETURN_IF_ERROR(forge_.close_pull_request(pr.number));
    return pr.number;
  }
  return 0;
}

}  // namespace kgate::bot
