#include "cli/proposal_handoff.h"

#include "bot/git_branch_writer.h"
#include "bot/proposal_import.h"
#include "bot/pull_request_publisher.h"
#include "cli/forge_options.h"
#include "core/log.h"
#include "gate/git_tree.h"
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
               "Only write proposal files; open no pull requests (the bot picks them up later)");
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
    auto branch = bot::current_branch(config_.repo_dir);
    const Implementation* impl = kernel.implementation(backend);
    if (!repo.ok() || !branch.ok() || !impl) return "-";
    std::error_code ec;
    auto root = std::filesystem::weakly_canonical((*repo)->workdir(), ec);
    auto closed = publisher.withdraw_if_obsolete(
        kernel.name, *branch,
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
  options.manifest_path = manifest.path;
  if (const auto& device = file->value("device", nlohmann::json()); device.is_object())
    if (auto c = profile::CeilingStore::default_store().find(device.value("name", "")))
      options.bandwidth_ceiling = c->bandwidth_bytes_per_s;
  auto pr = bot::import_proposal(*file, options);
  if (!pr.ok()) return fail_line(pr.error());
  auto outcome = publisher.propose(*pr);
  if (!outcome.ok()) return fail_line(outcome.error().with_context(forge_->describe()));
  progress(kernel.name + ": " + outcome->message +
           (outcome->url.empty() ? "" : " " + outcome->url));
  std::string line = bot::to_string(outcome->action);
  if (outcome->number > 0) line += " #" + std::to_string(outcome->number);
  return line + " " + outcome->branch;
}

}  // namespace kgate::cli
