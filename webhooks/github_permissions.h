#pragma once
// "May this user write to this repository?" answered by GitHub itself:
// GET /repos/{owner}/{repo}/collaborators/{username}/permission through the
// bot's GitHub client. author_association alone is not enough: an org MEMBER
// may have read access only, and a CONTRIBUTOR may have been given write.
// Invariants: an answer is cached per (repository, user) for `ttl_s`, so a
// burst of deliveries costs one call (the router runs inside the intake's
// commit); when GitHub cannot be asked, the author_association answer is used.
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "bot/github_client.h"
#include "webhooks/trust_policy.h"

namespace kgate::webhooks {

class GitHubPermissions : public PermissionLookup {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  explicit GitHubPermissions(std::shared_ptr<bot::GitHubClient> client, double ttl_s = 60,
                             Clock clock = nullptr);

  std::optional<bool> has_write(const std::string& repository, const std::string& user,
                                const std::string& author_association) const override;

  // The REST answer's verdict: role_name (admin, maintain, write, triage, read,
  // or a custom role) when present, else the legacy permission field.
  static std::optional<bool> write_from_response(const nlohmann::json& body);

 private:
  struct Cached {
    bool write;
    std::chrono::steady_clock::time_point until;
  };
  std::shared_ptr<bot::GitHubClient> client_;
  std::chrono::steady_clock::duration ttl_;
  Clock clock_;
  AuthorAssociationPermissions fallback_;
  mutable std::mutex mutex_;
  mutable std::map<std::pair<std::string, std::string>, Cached> cache_;
};

}  // namespace kgate::webhooks
