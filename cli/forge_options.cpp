#include "cli/forge_options.h"

namespace kgate::cli {

void add_forge_options(CLI::App& app, bot::ForgeConfig& config, bool repo_options) {
  app.add_option("--forge", config.kind,
                 "Where to publish: local (files under the state directory) or github")
      ->check(CLI::IsMember({"local", "github"}));
  app.add_option("--github-repo", config.github_repo,
                 "OWNER/NAME on GitHub (default: $GITHUB_REPOSITORY with --forge github)");
  app.add_option("--github-api-url", config.api_url,
                 "GitHub API base URL, for GitHub Enterprise (default: $GITHUB_API_URL or "
                 "https://api.github.com)");
  app.add_flag("--commit-statuses", config.use_commit_statuses,
               "Report commit statuses instead of check runs (tokens without checks:write)");
  if (!repo_options) return;
  app.add_option("--repo", config.repo_dir, "The local git repository (default: .)");
  app.add_option("--state-dir", config.state_dir,
                 "Local forge state (default: <repo>/.kgate or $KGATE_STATE_DIR)");
}

}  // namespace kgate::cli
