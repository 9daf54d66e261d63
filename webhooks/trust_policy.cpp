#include "webhooks/trust_policy.h"

namespace kgate::webhooks {

bool PermissionLookup::answer_at_hand(const std::string&, const std::string&) const {
  return true;
}

std::string PermissionLookup::why_unknown(const std::string& repository, const std::string& user,
                                          const std::string&) const {
  return "kgate could not find out whether " + user + " has write access to " + repository;
}

std::optional<bool> AuthorAssociationPermissions::has_write(const std::string&, const std::string&,
                                                            const std::string& association) const {
  if (association == "OWNER") return true;
  if (association.empty() || association == "MEMBER" || association == "COLLABORATOR")
    return std::nullopt;
  return false;
}

std::string AuthorAssociationPermissions::why_unknown(const std::string&, const std::string& user,
                                                      const std::string& association) const {
  std::string what = association.empty()
                         ? "GitHub's payload does not say what " + user + " may do"
                         : "the association " + association + " does not tell " + "whether " +
                               user + " may write (it may be read only)";
  return what + "; start kgate serve with --forge github so that GitHub's permission API decides";
}

bool pull_request_trusted(const PullRequestInfo& pr) {
  return !pr.from_fork();
}

}  // namespace kgate::webhooks
