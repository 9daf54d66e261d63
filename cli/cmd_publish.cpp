// kgate publish: what `kgate optimize|sweep|baseline record --no-publish`
// left behind, published through the forge. This is the second half of a
// split job (workflows/kgate-optimize.yml): the GPU job runs generated
// kernels with no token in reach and uploads its proposal files and
// baselines; a job that runs no kernel publishes them with the App's token.
//   proposals/<kernel>.json -> pull requests (cli/proposal_handoff.h)
//   --baselines DIR         -> commits on kgate/baselines (bot/baseline_branch.h)
#include <algorithm>
#include <cstdio>

#include "agent/optimize_job.h"
#include "bot/baseline_branch.h"
#include "bot/proposal_import.h"
#include "cli/command.h"
#include "cli/proposal_handoff.h"
#include "core/log.h"
#include "core/manifest_loader.h"
#include "core/text_table.h"

namespace kgate::cli {
namespace {

struct PublishArgs {
  std::string repo = ".";
  std::string state_dir;
  std::string proposals;  // empty: <state>/proposals
  std::string kernel;
  std::vector<std::string> baselines;
  bool no_proposals = false;
  std::string baselines_branch = bot::kBaselinesBranch;
};

int run(const PublishArgs& args, ProposalHandoff& handoff) {
  std::filesystem::path state =
      args.state_dir.empty() ? default_state_dir(args.repo) : std::filesystem::path(args.state_dir);
  if (Status s = handoff.open(args.repo, state); !s.ok()) return fail(s.error());
  if (!handoff.enabled())
    return fail(Error::bad_input(args.repo + " is not a git repository to publish from"));
  auto manifest_path = find_manifest(args.repo);
  if (!manifest_path)
    return fail(Error::bad_input("no kgate.json (or .github/kgate.json) in " + args.repo));
  auto manifest = load_manifest(*manifest_path);
  if (!manifest.ok()) return fail(manifest.error());
  if (!args.kernel.empty() && !manifest->kernel(args.kernel))
    return fail(Error::bad_input("no kernel '" + args.kernel + "' in " + manifest->path.string()));

  TextTable table({"kernel", "pull request"});
  size_t rows = 0;
  bool failed = false;
  bool seen_kernel = false;
  std::filesystem::path folder =
      args.proposals.empty() ? state / "proposals" : std::filesystem::path(args.proposals);
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  if (!args.no_proposals)
    for (const auto& entry : std::filesystem::directory_iterator(folder, ec))
      if (entry.is_regular_file() && entry.path().extension() == ".json")
        files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    auto proposal = bot::read_proposal_file(file);
    if (!proposal.ok()) {
      warn(proposal.error().message);
      failed = true;
      continue;
    }
    std::string name = proposal->value("kernel", "");
    if (!args.kernel.empty() && name != args.kernel) continue;
    const Kernel* kernel = manifest->kernel(name);
    if (!kernel) {
      warn(file.string() + ": no kernel '" + name + "' in " + manifest->path.string());
      failed = true;
      continue;
    }
    seen_kernel |= name == args.kernel;
    table.add({name, handoff.hand_off(*manifest, *kernel, proposal->value("backend", ""), file)});
    ++rows;
  }
  // --kernel without a proposal: its episode found nothing, so an open pull
  // request whose "before" changed on the base is withdrawn.
  if (!args.kernel.empty() && !seen_kernel && !args.no_proposals) {
    const Kernel& kernel = *manifest->kernel(args.kernel);
    std::string backend =
        kernel.implementations.empty() ? "" : kernel.implementations.front().backend;
    table.add({kernel.name, handoff.hand_off(*manifest, kernel, backend, "")});
    ++rows;
  }

  for (const std::string& baselines : args.baselines) {
    auto published =
        bot::publish_baselines(*handoff.forge(), args.repo, baselines, args.baselines_branch);
    if (!published.ok()) {
      warn("baselines were not published: " + published.error().message);
      failed = true;
    } else if (published->files == 0) {
      progress("baselines: none recorded under " + baselines);
    } else {
      progress("baselines: " + std::to_string(published->files) + " file(s) " +
               (published->changed ? "published on " : "already on ") + args.baselines_branch +
               " (" + published->commit_sha.substr(0, 12) + ")");
    }
  }
  if (rows > 0) std::fputs(table.render().c_str(), stdout);
  return failed || handoff.failed() ? to_int(ExitCode::kInfrastructure) : 0;
}

CommandRegistration registration_publish(
    "publish",
    "Publish proposal files and recorded baselines left by --no-publish runs (pull requests, "
    "kgate/baselines)",
    [](CLI::App& app) {
      auto args = std::make_shared<PublishArgs>();
      auto handoff = std::make_shared<ProposalHandoff>();
      app.add_option("--repo", args->repo, "The git clone to publish from (holding kgate.json)")
          ->capture_default_str();
      app.add_option("--state-dir", args->state_dir,
                     "State folder (default: <repo>/.kgate or $KGATE_STATE_DIR)");
      app.add_option("--proposals", args->proposals,
                     "Folder of proposal files (default: <state>/proposals)");
      app.add_option("--kernel", args->kernel,
                     "Only this kernel; without a proposal for it, an obsolete open pull request "
                     "is withdrawn");
      app.add_option("--baselines", args->baselines,
                     "Folder of baseline files to commit on the baselines branch (repeatable)");
      app.add_flag("--no-proposals", args->no_proposals, "Publish baselines only");
      app.add_option("--baselines-branch", args->baselines_branch,
                     "Branch that keeps the baselines")
          ->capture_default_str();
      handoff->add_options(app);
      return [args, handoff] { return run(*args, *handoff); };
    });

}  // namespace
}  // namespace kgate::cli
