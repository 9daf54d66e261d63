#pragma once
// Building the configured forge from command-line settings and the
// environment, for every subcommand that publishes (gate, sweep, optimize,
// serve):
//   --forge local|github      default: github when a repository is named (--github-repo
//                             or $GITHUB_REPOSITORY), else local
//   --github-repo OWNER/NAME  default: $GITHUB_REPOSITORY (set in GitHub Actions)
//   --github-api-url URL      default: $GITHUB_API_URL, else https://api.github.com
//   --commit-statuses         statuses instead of check runs
//   --state-dir DIR           local forge: default <repo>/.kgate or $KGATE_STATE_DIR
// Credentials come only from the environment: GITHUB_TOKEN (or GH_TOKEN), or
// a GitHub App: KGATE_APP_ID + KGATE_APP_PRIVATE_KEY (PEM text) or
// KGATE_APP_PRIVATE_KEY_FILE + KGATE_INSTALLATION_ID. The App wins when both are set.
// kgate's identity on GitHub (bot_identity.h): KGATE_APP_SLUG (default: the App's,
// else "kgate"),
// KGATE_BOT_USER_ID (default: asked of GitHub), KGATE_BOT_LOGIN (default: derived).
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "bot/forge.h"
#include "bot/github_client.h"

namespace kgate::bot {

struct ForgeConfig {
  std::string kind;         // "local", "github", or empty (decide from github_repo)
  std::string github_repo;  // OWNER/NAME
  std::string api_url;      // empty: environment, then https://api.github.com
  std::string web_url;      // empty: $GITHUB_SERVER_URL, else derived from api_url
  std::string git_url;      // empty: <web_url>/<OWNER>/<NAME>.git (tests: file:///...)
  bool use_commit_statuses = false;
  std::filesystem::path repo_dir = ".";  // the local clone
  std::filesystem::path state_dir;       // empty: default_state_dir(repo_dir)
  GitHubClientOptions client;            // retry policy, clock, request observer
};

// Reads an environment variable; replaceable in tests.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
std::optional<std::string> process_env(const std::string& name);

// Errors are bad_input with what to set ("--github-repo OWNER/NAME or GITHUB_REPOSITORY").
Result<std::unique_ptr<Forge>> make_forge(const ForgeConfig& config,
                                          const EnvLookup& env = process_env);

// The credentials GitHub forges use, from the environment.
Result<std::shared_ptr<GitHubCredentials>> github_credentials_from_env(
    const EnvLookup& env, const std::string& api_url, const GitHubClientOptions& client);

}  // namespace kgate::bot
