#include "bot/forge_config.h"

#include <cstdlib>

#include "bot/github_app_credentials.h"
#include "bot/github_forge.h"
#include "bot/local_forge.h"
#include "core/file_util.h"
#include "core/redact.h"

namespace kgate::bot {
namespace {

std::string env_or(const EnvLookup& env, const std::string& name, const std::string& fallback) {
  std::optional<std::string> v = env(name);
  return v && !v->empty() ? *v : fallback;
}

// https://api.github.com -> https://github.com; https://ghe.example/api/v3 -> https://ghe.example
std::string web_url_for(const std::string& api_url) {
  if (api_url == "https://api.github.com") return "https://github.com";
  const std::string suffix = "/api/v3";
  if (api_url.size() > suffix.size() &&
      api_url.compare(api_url.size() - suffix.size(), suffix.size(), suffix) == 0)
    return api_url.substr(0, api_url.size() - suffix.size());
  return api_url;
}

}  // namespace

std::optional<std::string> process_env(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  if (!v) return std::nullopt;
  return std::string(v);
}

Result<std::shared_ptr<GitHubCredentials>> github_credentials_from_env(
    const EnvLookup& env, const std::string& api_url, const GitHubClientOptions& client) {
  std::string app_id = env_or(env, "KGATE_APP_ID", "");
  if (!app_id.empty()) {
    std::string key = env_or(env, "KGATE_APP_PRIVATE_KEY", "");
    std::string key_file = env_or(env, "KGATE_APP_PRIVATE_KEY_FILE", "");
    if (key.empty() && !key_file.empty()) {
      Result<std::string> text = read_file(key_file);
      if (!text.ok())
        return Error::bad_input("KGATE_APP_PRIVATE_KEY_FILE: cannot read " + key_file);
      key = *text;
    }
    register_secret(key);
    std::string installation = env_or(env, "KGATE_INSTALLATION_ID", "");
    if (key.empty() || installation.empty())
      return Error::bad_input(
          "KGATE_APP_ID is set, so kgate authenticates as a GitHub App and also needs "
          "KGATE_APP_PRIVATE_KEY (or KGATE_APP_PRIVATE_KEY_FILE) and KGATE_INSTALLATION_ID");
    GitHubAppConfig app{.app_id = app_id,
                        .private_key_pem = key,
                        .installation_id = installation,
                        .api_url = api_url,
                        .client = client};
    return std::shared_ptr<GitHubCredentials>(
        std::make_shared<GitHubAppCredentials>(std::move(app)));
  }
  std::string token = env_or(env, "GITHUB_TOKEN", env_or(env, "GH_TOKEN", ""));
  if (token.empty())
    return Error::bad_input(
        "the GitHub forge needs credentials: set GITHUB_TOKEN, or KGATE_APP_ID, "
        "KGATE_APP_PRIVATE_KEY(_FILE) and KGATE_INSTALLATION_ID for a GitHub App");
  return std::shared_ptr<GitHubCredentials>(std::make_shared<TokenCredentials>(token));
}

Result<std::unique_ptr<Forge>> make_forge(const ForgeConfig& config, const EnvLookup& env) {
  // GITHUB_REPOSITORY (set in every GitHub Actions job) names the repository
  // unless --forge local says otherwise, and a named repository means GitHub.
  std::string repo = !config.github_repo.empty() ? config.github_repo
                     : config.kind == "local"    ? std::string()
                                                 : env_or(env, "GITHUB_REPOSITORY", "");
  std::string kind = config.kind.empty() ? (repo.empty() ? "local" : "github") : config.kind;
  if (kind == "local") {
    std::filesystem::path state =
        config.state_dir.empty() ? default_state_dir(config.repo_dir) : config.state_dir;
    return std::unique_ptr<Forge>(std::make_unique<LocalForge>(config.repo_dir, state));
  }
  if (kind != "github")
    return Error::bad_input("--forge must be 'local' or 'github', not '" + kind + "'");
  size_t slash = repo.find('/');
  if (repo.empty() || slash == std::string::npos || slash == 0 || slash + 1 == repo.size() ||
      repo.find('/', slash + 1) != std::string::npos)
    return Error::bad_input(
        repo.empty() ? "the GitHub forge needs --github-repo OWNER/NAME (or GITHUB_REPOSITORY)"
                     : "--github-repo must be OWNER/NAME, not '" + repo + "'");
  GitHubClientOptions client = config.client;
  client.api_url = !config.api_url.empty()
                       ? config.api_url
                       : env_or(env, "GITHUB_API_URL", "https://api.github.com");
  Result<std::shared_ptr<GitHubCredentials>> credentials =
      github_credentials_from_env(env, client.api_url, client);
  if (!credentials.ok()) return credentials.error();
  GitHubForgeConfig forge{.owner = repo.substr(0, slash),
                          .repo = repo.substr(slash + 1),
                          .use_commit_statuses = config.use_commit_statuses,
                          .web_url = !config.web_url.empty() ? config.web_url
                                                             : env_or(env, "GITHUB_SERVER_URL",
                                                                      web_url_for(client.api_url)),
                          .git_url = config.git_url,
                          .app_slug = env_or(env, "KGATE_APP_SLUG", ""),
                          .bot_login = env_or(env, "KGATE_BOT_LOGIN", "")};
  if (std::string id = env_or(env, "KGATE_BOT_USER_ID", ""); !id.empty()) {
    char* end = nullptr;
    long long value = std::strtoll(id.c_str(), &end, 10);
    if (!end || *end || value <= 0)
      return Error::bad_input(
          "KGATE_BOT_USER_ID must be the bot user's numeric id (GET /users/<slug>%5Bbot%5D), "
          "not '" +
          id + "'");
    forge.bot_user_id = value;
  }
  auto http = std::make_shared<GitHubClient>(*credentials, client);
  return std::unique_ptr<Forge>(std::make_unique<GitHubForge>(http, forge));
}

}  // namespace kgate::bot
