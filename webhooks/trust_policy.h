#pragma once
// Who may run code on a GPU runner. Code from a fork or from an author without
// write permission waits until a maintainer approves that exact head commit.
// Commands in comments are taken only from users with write permission.
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
  // nullopt: unknown (no association given and nothing to ask).
  virtual std::optional<bool> has_write(const std::string& repository, const std::string& user,
                                        const std::string& author_association) const = 0;
};

// OWNER, MEMBER and COLLABORATOR have write access; every other association
// (CONTRIBUTOR, FIRST_TIMER, FIRST_TIME_CONTRIBUTOR, MANNEQUIN, NONE) does not.
class AuthorAssociationPermissions : public PermissionLookup {
 public:
  std::optional<bool> has_write(const std::string& repository, const std::string& user,
                                const std::string& author_association) const override;
};

// A pull request's code may run without approval: not from a fork, and its
// author has write permission (an unknown answer counts as no).
bool pull_request_trusted(const PullRequestInfo& pr, const std::string& repository,
                          const PermissionLookup& permissions);

}  // namespace kgate::webhooks
