#pragma once
// "May this user write to this repository?" answered by GitHub itself:
// GET /repos/{owner}/{repo}/collaborators/{username}/permission through the
// bot's GitHub client. author_association alone is not enough: an org MEMBER
// may have read access only, and a CONTRIBUTOR may have been given write.
// GitHub's description of the endpoint says to read `permission` (admin,
// write, read or none; maintain and triage fold into write and read there,
// custom roles into the base they extend), not `role_name`, which names
// custom roles by their own names.
// Invariants: answers are cached per (repository, user): yes for ttl_s, no
// (read access, 404) for negative_ttl_s, a failure (GitHub down, a time-out)
// for failure_ttl_s, during which has_write answers nullopt without asking
// again. A failure is never replaced by author_association: it is unknown.
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

struct PermissionCacheOptions {
  double ttl_s = 60;           // write access
  double negative_ttl_s = 15;  // no write access: a new collaborator is seen soon
  double failure_ttl_s = 10;   // GitHub could not answer: asked again after this
};

class GitHubPermissions : public PermissionLookup {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  GitHubPermissions(std::shared_ptr<bot::GitHubClient> client, PermissionCacheOptions cache = {},
                    Clock clock = nullptr);

  std::optional<bool> has_write(const std::string& repository, const std::string& user,
                                const std::string& author_association) const override;
  bool answer_at_hand(const std::string& repository, const std::string& user) const override;
  std::string why_unknown(const std::string& repository, const std::string& user,
                          const std::string& author_association) const override;

  // The REST answer's verdict from its `permission` field; nullopt without one.
  static std::optional<bool> write_from_response(const nlohmann::json& body);

 private:
  struct Cached {
    std::optional<bool> write;  // nullopt: the lookup failed
    std::string problem;        // why it failed
    std::chrono::steady_clock::time_point until;
  };
  std::shared_ptr<bot::GitHubClient> client_;
  PermissionCacheOptions cache_options_;
  Clock clock_;
  mutable std::mutex mutex_;
  mutable std::map<std::pair<std::string, std::string>, Cached> cache_;
};

}  // namespace kgate::webhooks
