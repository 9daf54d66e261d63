#pragma once
// Turns an accepted candidate into a pull request, without ever spamming
// and without ever overwriting people's work:
//  - one branch per kernel (kgate/optimize/<kernel>), rewritten from the base
//    with the candidate's files only (the chart is in the body), committed
//    as kgate's identity and force-pushed;
//  - but only while every commit on the forge's copy of the branch that the
//    base lacks is kgate's own: a branch someone else pushed to is left
//    alone, with one comment saying so, until `/kgate rebase` (take_over);
//  - an open pull request for that branch is updated (title, body, one
//    edited "updated" comment), never duplicated;
//  - a closed pull request carrying the same result hash is not reopened and
//    the result is not proposed again;
//  - after `/kgate ignore` (ignore()) nothing is proposed for the kernel
//    until a new `/kgate optimize` (unignore); the state lives on the forge,
//    in the closed pull request, so every kgate process sees it;
//  - withdraw() closes an open one that a newer base made obsolete, with a
//    comment that says why.
#include <filesystem>
#include <string>
#include <vector>

#include "bot/forge.h"
#include "bot/pull_request_proposal.h"

namespace kgate::bot {

enum class ProposalAction {
  kCreated,        // a new pull request
  kUpdated,        // the open one got the new candidate and body
  kUnchanged,      // the open one already carries this result
  kDeclined,       // a closed pull request had this result: not proposed again
  kAlreadyInBase,  // the base already has this source: nothing to propose
  kBlocked,        // the branch has someone else's commits: left alone, said so
  kIgnored,        // `/kgate ignore` holds for this kernel: nothing proposed
};
const char* to_string(ProposalAction action);

struct ProposalOutcome {
  ProposalAction action = ProposalAction::kCreated;
  int number = 0;  // the pull request concerned (0 when none)
  std::string url;
  std::string branch;
  std::string commit_sha;  // the branch head pushed (empty when nothing was pushed)
  std::string message;     // one line for the user
};

inline constexpr const char* kUpdateCommentMarker = "<!-- kgate:update -->";
inline constexpr const char* kCloseCommentMarker = "<!-- kgate:closed -->";
inline constexpr const char* kBlockedCommentMarker = "<!-- kgate:blocked -->";
inline constexpr const char* kIgnoreCommentMarker = "<!-- kgate:ignore -->";
// In the body of a pull request closed by `/kgate ignore`.
inline constexpr const char* kIgnoredMarker = "<!-- kgate:ignored -->";
inline constexpr const char* kIgnoredLabel = "kgate:ignored";

struct ProposeOptions {
  // `/kgate rebase`: rewrite the branch even though others pushed commits to it.
  bool take_over = false;
  // `/kgate optimize` or `/kgate rebase` asked for this: an earlier `/kgate ignore` no longer
  // holds.
  bool unignore = false;
};

class PullRequestPublisher {
 public:
  // `repo_dir`: the local clone the branch is written in (and pushed from).
  PullRequestPublisher(Forge& forge, std::filesystem::path repo_dir)
      : forge_(forge), repo_dir_(std::move(repo_dir)) {}

  Result<ProposalOutcome> propose(const PullRequestProposal& proposal,
                                  const ProposeOptions& options = {});

  // `/kgate ignore` by `by` on pull request `number` of `kernel`: a comment
  // saying what it means, the body marked (kIgnoredMarker), the label
  // kIgnoredLabel, closed. An error when `number` is not kgate's pull
  // request for `kernel`.
  Status ignore(const std::string& kernel, int number, const std::string& by);

  // Closes the open pull request of `kernel`, if any, with a comment giving
  // `reason`. Returns its number, or 0 when none was open.
  Result<int> withdraw(const std::string& kernel, const std::string& reason);

  // For a kernel whose new episode found nothing faster than `base_rev`: an
  // open pull request measured against another revision, in which one of
  // `paths` (the kernel's files) differs from `base_rev`, no longer applies
  // (its "before" is gone) and is withdrawn. One measured against `base_rev`
  // itself, or whose revision this clone lacks, is left open: a second run
  // that misses a gain is noise, not evidence. Returns its number, or 0.
  Result<int> withdraw_if_obsolete(const std::string& kernel, const std::string& base_rev,
                                   const std::vector<std::string>& paths);

 private:
  Forge& forge_;
  std::filesystem::path repo_dir_;
};

}  // namespace kgate::bot
