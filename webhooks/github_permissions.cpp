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

}  // namespace

GitHubPermissions::GitHubPermissions(std::shared_ptr<bot::GitHubClient> client, double ttl_s,
                                     Clock clock)
    : client_(std::move(client)),
      ttl_(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(ttl_s))),
      clock_(clock ? std::move(clock) : Clock([] { return std::chrono::steady_clock::now(); })) {}

std::optional<bool> GitHubPermissions::write_from_response(const nlohmann::json& body) {
  if (!body.is_object()) return std::nullopt;
  std::string role = body.value("role_name", "");
  if (!role.empty()) return role == "admin" || role == "maintain" || role == "write";
  std::string permission = body.value("permission", "");
  if (permission.empty()) return std::nullopt;
  return permission == "admin" || permission == "maintain" || permission == "write";
}

std::optional<bool> GitHubPermissions::has_write(const std::string& repository,
                                                 const std::string& user,
                                                 const std::string& association) const {
  if (!plain_login(user) || repository.find('/') == std::string::npos)
    return fallback_.has_write(repository, user, association);
  auto key = std::make_pair(repository, user);
  auto now = clock_();
  {
    std::lock_guard lock(mutex_);
    if (auto it = cache_.find(key); it != cache_.end() && it->second.until > now)
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
    if (!write) problem = "GET " + path + ": no permission in the answer";
  } else {
    problem = bot::describe_github_error("GET", path, *response);
  }
  if (!write) {
    // GitHub could not answer (down, token without metadata:read): the
    // association GitHub put in the payload is the best remaining answer.
    std::optional<bool> fallback = fallback_.has_write(repository, user, association);
    json_log({{"msg", "permission lookup failed; using author_association"},
              {"repository", repository},
              {"user", user},
              {"association", association},
              {"error", problem}});
    return fallback;
  }
  std::lock_guard lock(mutex_);
  cache_[key] = {*write, now + ttl_};
  return write;
}

}  // namespace kgate::webhooks
