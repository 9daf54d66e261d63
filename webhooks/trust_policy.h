#pragma once
// Who may run code on a GPU runner, and who may command kgate. Trust fails
// closed: an answer kgate cannot get counts as "no", with the reason told.
//  - A pull request's code runs without approval when its head branch is in
//    the repository itself: only people (and apps) with write access can push
//    there, so whoever opened the pull request, its commits were pushed by
//    someone who could have pushed them to the default branch too. This is
//    what lets kgate's own pull requests and Dependabot's (whose authors are
//    bots GitHub's permission API does not know) be gated on every push.
//  - Code from a fork (or from a deleted head repository) waits until a
//    maintainer approves that exact head commit.
//  - Commands in comments, and the approval label, count only from users with
//    write access as GitHub's collaborator permission API reports it.
#include <optional>
#include <string>

#include "webhooks/webhook_event.h"

namespace kgate::webhooks {

// Answers "may this user write to this repository?". The glue with the bot's
// forge backs it with GitHub's collaborator permission API; the default
// reads GitHub's author_association.
class PermissionLookup {
 public:
  virtual ~PermissionLookup() = default;
  // nullopt: unknown (GitHub could not be asked, or the association does not
  // tell); callers treat it as no and say why_unknown().
  virtual std::optional<bool> has_write(const std::string& repository, const std::string& user,
                                        const std::string& author_association) const = 0;
  // Whether has_write would answer now without asking GitHub (a cached
  // answer, or nothing to ask). The intake routes a delivery at once only
  // when every answer it needs is at hand.
  virtual bool answer_at_hand(const std::string& repository, const std::string& user) const;
  // Why has_write answered nullopt, for the person refused.
  virtual std::string why_unknown(const std::string& repository, const std::string& user,
                                  const std::string& author_association) const;
};

// Without GitHub's API: only OWNER (the account that owns the repository)
// surely has write access. MEMBER and COLLABORATOR are unknown (an org
// member or an outside collaborator may have read access only), every other
// association (CONTRIBUTOR, FIRST_TIMER, FIRST_TIME_CONTRIBUTOR, MANNEQUIN,
// NONE) is no.
class AuthorAssociationPermissions : public PermissionLookup {
 public:
  std::optional<bool> has_write(const std::string& repository, const std::string& user,
                                const std::string& author_association) const override;
  std::string why_unknown(const std::string& repository, const std::string& user,
                          const std::string& author_association) const override;
};

// A pull request's code may run without approval: its head is a branch of
// the repository itself (see the top of this file).
bool pull_request_trusted(const PullRequestInfo& pr);

}  // namespace kgate::webhooks
