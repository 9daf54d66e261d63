#include "cli/proposal_handoff.h"

#include "bot/proposal_import.h"
#include "bot/pull_request_publisher.h"
#include "cli/forge_options.h"
#include "core/log.h"
#include "gate/git_repository.h"
#include "runner/profile/roofline.h"

namespace kgate::cli {
namespace {

// `file` relative to the clone's working tree, '/'-separated.
std::string in_clone(const std::filesystem::path& root, const std::filesystem::path& file) {
  std::error_code ec;
  return std::filesystem::weakly_canonical(file, ec).lexically_relative(root).generic_string();
}

}  // namespace

void ProposalHandoff::add_options(CLI::App& app) {
  add_forge_options(app, config_, /*repo_options=*/false);
  app.add_flag("--no-publish", no_publish_,
               "Only write proposal files; open no pull requests (`kgate publish` does later)");
  app.add_option("--base-branch", base_branch_,
                 "The branch pull requests target (default: the branch checked out; on a "
                 "detached HEAD in GitHub Actions, $GITHUB_REF_NAME)");
  app.add_option("--base-rev", base_rev_,
                 "The commit the results were measured on, which pull-request branches start "
                 "from (default: the tip of --base-branch)");
  app.add_flag("--take-over", propose_options_.take_over,
               "Rewrite kgate/optimize/<kernel> even where others pushed commits to it "
               "(`/kgate rebase`); without it kgate leaves such a branch alone and says so");
  app.add_flag("--unignore", propose_options_.unignore,
               "Propose even for a kernel ignored with `/kgate ignore` (a new `/kgate optimize`)");
}

Result<std::string> ProposalHandoff::base_branch() const {
  if (!base_branch_.empty()) return base_branch_;
  auto repo = GitRepository::open(config_.repo_dir);
  auto branch = repo.ok() ? (*repo)->current_branch() : Result<std::string>(repo.error());
  if (branch.ok()) return branch;
  // actions/checkout of a commit leaves HEAD detached; the workflow's ref names the branch.
  auto type = bot::process_env("GITHUB_REF_TYPE");
  auto name = bot::process_env("GITHUB_REF_NAME");
  if (type && *type == "branch" && name && !name->empty()) return *name;
  return branch.error();
}

Status ProposalHandoff::open(const std::string& repo, const std::filesystem::path& state_dir) {
  if (no_publish_) return {};
  const bool asked = !config_.kind.empty() || !config_.github_repo.empty();
  if (!GitRepository::open(repo).ok()) {
    if (asked)
      return Error::bad_input(repo +
                              " is not inside a git repository: pull requests are made "
                              "from branches of one (git init, or leave --forge out)");
    progress("publishing: off (" + repo +
             " is not in a git repository); accepted results stay as proposal files");
    return {};
  }
  config_.repo_dir = repo;
  config_.state_dir = state_dir;
  auto forge = bot::make_forge(config_);
  if (!forge.ok()) return forge.error().with_context("--forge");
  forge_ = std::move(forge.value());
  progress("publishing accepted results through the " + forge_->describe());
  return {};
}

std::string ProposalHandoff::hand_off(const Manifest& manifest, const Kernel& kernel,
                                      const std::string& backend,
                                      const std::filesystem::path& proposal) {
  if (!forge_) return proposal.empty() ? "-" : "not published";
  bot::PullRequestPublisher publisher(*forge_, config_.repo_dir);
  if (proposal.empty()) {
    // Nothing new: an open pull request whose kernel changed on the base is obsolete.
    auto repo = GitRepository::open(config_.repo_dir);
    auto branch = base_branch();
    const Implementation* impl = kernel.implementation(backend);
    if (!repo.ok() || !branch.ok() || !impl) return "-";
    std::error_code ec;
    auto root = std::filesystem::weakly_canonical((*repo)->workdir(), ec);
    // What the episode worked on: --base-rev, the branch checked out, or a detached HEAD.
    std::string measured =
        !base_rev_.empty() ? base_rev_ : ((*repo)->current_branch().ok() ? *branch : "HEAD");
    auto closed = publisher.withdraw_if_obsolete(
        kernel.name, measured,
        {in_clone(root, manifest.root / impl->source), in_clone(root, manifest.path)});
    if (!closed.ok()) {
      warn(kernel.name + ": could not check its open pull request: " + closed.error().message);
      failed_ = true;
      return "check of the open pull request failed";
    }
    return *closed > 0 ? "withdrew #" + std::to_string(*closed) + " (obsolete)" : "-";
  }
  auto fail_line = [&](const Error& e) {
    warn(kernel.name + ": the pull request was not published: " + e.message +
         "\nThe proposal is kept in " + proposal.string() +
         "; the next `kgate optimize` or `kgate sweep` publishes it again.");
    failed_ = true;
    return std::string("publish failed (proposal kept)");
  };
  auto file = bot::read_proposal_file(proposal);
  if (!file.ok()) return fail_line(file.error());
  bot::ProposalImportOptions options;
  options.repo_dir = config_.repo_dir;
  auto branch = base_branch();
  if (!branch.ok()) return fail_line(branch.error());
  options.base_branch = *branch;
  options.base_rev = base_rev_;
  options.manifest_path = manifest.path;
  if (const auto& device = file->value("device", nlohmann::json()); device.is_object())
    if (auto c = profile::CeilingStore::default_store().find(device.value("name", "")))
      options.bandwidth_ceiling = c->bandwidth_bytes_per_s;
  auto pr = bot::import_proposal(*file, options);
  if (!pr.ok()) return fail_line(pr.error());
  auto outcome = publisher.propose(*pr, propose_options_);
  if (!outcome.ok()) return fail_line(outcome.error().with_context(forge_->describe()));
  progress(kernel.name + ": " + outcome->message +
           (outcome->url.empty() ? "" : " " + outcome->url));
  std::string line = bot::to_string(outcome->action);
  if (outcome->number > 0) line += " #" + std::to_string(outcome->number);
  return line + " " + outcome->branch;
}

}  // namespace kgate::cli
