#include "webhooks/trust_policy.h"

namespace kgate::webhooks {

std::optional<bool> AuthorAssociationPermissions::has_write(const std::string&, const std::string&,
                                                            const std::string& association) const {
  if (association.empty()) return std::nullopt;
  return association == "OWNER" || association == "MEMBER" || association == "COLLABORATOR";
}

bool pull_request_trusted(const PullRequestInfo& pr, const std::string& repository,
                          const PermissionLookup& permissions) {
  if (pr.from_fork()) return false;
  return permissions.has_write(repository, pr.author, pr.author_association).value_or(false);
}

}  // namespace kgate::webhooks
