#include "webhooks/github_permissions.h"

#include "webhooks/json_log.h"

namespace kgate::webhooks {
namespace {

// Logins are [A-Za-z0-9-] (and "[bot]" suffixes); anything else is not sent
// into a URL path.
bool plain_login(const std::string& user) {
  if (user.empty() || user.size() > 100) return false;
  for (char c : user)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '[' &&
        c != ']' && c != '.')
      return false;
  return true;
}

std::chrono::steady_clock::duration span(double s) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(s));
}

}  // namespace

GitHubPermissions::GitHubPermissions(std::shared_ptr<bot::GitHubClient> client,
                                     PermissionCacheOptions cache, Clock clock)
    : client_(std::move(client)),
      cache_options_(cache),
      clock_(clock ? std::move(clock) : Clock([] { return std::chrono::steady_clock::now(); })) {}

std::optional<bool> GitHubPermissions::write_from_response(const nlohmann::json& body) {
  if (!body.is_object()) return std::nullopt;
  auto permission = body.find("permission");
  if (permission == body.end() || !permission->is_string()) return std::nullopt;
  const std::string& p = permission->get_ref<const std::string&>();
  return p == "admin" || p == "maintain" || p == "write";
}

bool GitHubPermissions::answer_at_hand(const std::string& repository,
                                       const std::string& user) const {
  if (!plain_login(user) || repository.find('/') == std::string::npos) return true;
  std::lock_guard lock(mutex_);
  auto it = cache_.find({repository, user});
  return it != cache_.end() && it->second.write && it->second.until > clock_();
}

std::string GitHubPermissions::why_unknown(const std::string& repository, const std::string& user,
                                           const std::string& association) const {
  if (!plain_login(user)) return "'" + user + "' is not a GitHub login kgate can look up";
  std::lock_guard lock(mutex_);
  auto it = cache_.find({repository, user});
  if (it != cache_.end() && !it->second.write)
    return "GitHub's permission API did not answer for " + user + " (" + it->second.problem + ")";
  return PermissionLookup::why_unknown(repository, user, association);
}

std::optional<bool> GitHubPermissions::has_write(const std::string& repository,
                                                 const std::string& user,
                                                 const std::string&) const {
  if (!plain_login(user) || repository.find('/') == std::string::npos) return std::nullopt;
  auto key = std::make_pair(repository, user);
  {
    std::lock_guard lock(mutex_);
    if (auto it = cache_.find(key); it != cache_.end() && it->second.until > clock_())
      return it->second.write;
  }
  std::string path = "/repos/" + repository + "/collaborators/" + user + "/permission";
  auto response = client_->send("GET", path);
  std::optional<bool> write;
  std::string problem;
  if (!response.ok()) {
    problem = response.error().message;
  } else if (response->status == 404) {
    write = false;  // not a collaborator (or no such user): no write access
  } else if (response->status / 100 == 2) {
    write = write_from_response(response->json);
    if (!write) problem = "GET " + path + ": no `permission` in the answer";
  } else {
    problem = bot::describe_github_error("GET", path, *response);
  }
  double ttl = !write ? cache_options_.failure_ttl_s
                      : (*write ? cache_options_.ttl_s : cache_options_.negative_ttl_s);
  if (!write)
    json_log({{"msg", "permission lookup failed; the user counts as without write access"},
              {"repository", repository},
              {"user", user},
              {"error", problem},
              {"asked_again_in_s", ttl}});
  std::lock_guard lock(mutex_);
  cache_[key] = {write, problem, clock_() + span(ttl)};
  return write;
}

}  // namespace kgate::webhooks
