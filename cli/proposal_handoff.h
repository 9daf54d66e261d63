#pragma once
// Hands each accepted result of `kgate optimize` and `kgate sweep` to the
// bot: the episode's proposal file (agent/proposal.h) becomes a pull request
// on the configured forge (the local forge when nothing is configured),
// updated in place when one is open for the kernel; a kernel whose new
// episode found nothing has an obsolete open pull request withdrawn.
//
// Invariant: forge_ is set iff publishing is on. The proposal file stays
// where it is whatever happens, so a failed publication loses nothing: the
// error says so, failed() turns the exit code into "infrastructure", and the
// next run publishes it again.
#include <filesystem>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "bot/forge.h"
#include "bot/forge_config.h"
#include "bot/pull_request_publisher.h"
#include "core/manifest.h"

namespace kgate::cli {

class ProposalHandoff {
 public:
  // --forge, --github-repo, --github-api-url, --commit-statuses, --no-publish,
  // --base-branch, --base-rev, --take-over, --unignore.
  void add_options(CLI::App& app);

  // Opens the forge for the git repository holding `repo` (the agent's
  // --repo; its state folder is the local forge's). With nothing configured
  // and no git repository there, publishing is off and a note says so; an
  // Error (bad input) when a forge was asked for and cannot be opened.
  Status open(const std::string& repo, const std::filesystem::path& state_dir);

  // Publishes `proposal` (empty: the episode proposed nothing, so an
  // obsolete open pull request is withdrawn). Returns one line for people.
  std::string hand_off(const Manifest& manifest, const Kernel& kernel, const std::string& backend,
                       const std::filesystem::path& proposal);

  bool enabled() const { return forge_ != nullptr; }
  bot::Forge* forge() const { return forge_.get(); }
  bool failed() const { return failed_; }

 private:
  // The branch pull requests target: --base-branch, else the branch checked
  // out, else (a detached HEAD in GitHub Actions) $GITHUB_REF_NAME.
  Result<std::string> base_branch() const;

  bot::ForgeConfig config_;
  bool no_publish_ = false;
  std::string base_branch_;
  std::string base_rev_;
  bot::ProposeOptions propose_options_;
  std::unique_ptr<bot::Forge> forge_;
  bool failed_ = false;
};

}  // namespace kgate::cli
