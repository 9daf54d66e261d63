// kgate optimize KERNEL: one optimization episode on one kernel; the best
// version found is printed per shape against the original and, when it beats
// it, written as a proposal and handed to the bot (cli/proposal_handoff.h).
#include <cstdio>
#include <sstream>

#include "agent/episode_explanation.h"
#include "agent/episode_turns.h"
#include "agent/handoff_provider.h"
#include "agent/persisted_json.h"
#include "cli/agent_options.h"
#include "cli/command.h"
#include "cli/proposal_handoff.h"
#include "core/log.h"
#include "core/manifest_loader.h"
#include "core/number_format.h"
#include "core/text_table.h"
#include "gate/revision_checkout.h"

namespace kgate::cli {
namespace {

std::string fmt(double v) {
  std::ostringstream s;
  s.precision(3);
  s << v;
  return s.str();
}

int run(const std::string& kernel_name, const AgentCliOptions& args, ProposalHandoff& handoff);

// A hand-off stopped at a model turn: where the request is, where its answer
// goes, and exit code 4. Nothing goes to the bot before the episode ends.
int print_waiting(const EpisodeResult& episode) {
  const PendingTurn& w = *episode.waiting;
  std::printf("episode %s: %s\n", episode.record.id.c_str(), waiting_line(w).c_str());
  std::printf("request: %s\n", (episode.dir / w.request).c_str());
  std::printf("answer:  %s\n", (episode.dir / w.answer).c_str());
  std::printf(
      "Write the model's answer to the request there, then run the same command again (the "
      "state folder may be moved to another machine first).\n");
  return to_int(kWaitingForAnswer);
}

// --ref: the episode works on that commit's files (written out through
// libgit2), while episodes, lessons and proposals stay in the repository's
// state folder, so a job of `kgate serve` optimizes the commit it was asked
// about whatever is checked out.
int run_at(const std::string& kernel_name, AgentCliOptions args, const std::string& ref,
           ProposalHandoff& handoff) {
  if (ref.empty()) return run(kernel_name, args, handoff);
  auto checkout = RevisionCheckout::make(args.repo, ref);
  if (!checkout.ok()) return fail(checkout.error().with_context("--ref"));
  progress("optimizing " + kernel_name + " at " + ref + " (" + checkout->commit().substr(0, 12) +
           ")");
  if (args.state_dir.empty()) args.state_dir = default_state_dir(args.repo).string();
  args.repo = checkout->in_checkout(args.repo).string();
  return run(kernel_name, args, handoff);
}

int run(const std::string& kernel_name, const AgentCliOptions& args, ProposalHandoff& handoff) {
  auto manifest = load_manifest(args.repo);
  if (!manifest.ok()) return fail(manifest.error());
  const Kernel* kernel = manifest->kernel(kernel_name);
  if (!kernel)
    return fail(Error::bad_input("no kernel '" + kernel_name + "' in " + manifest->path.string()));
  for (const std::string& s : to_optimize_options(args, *manifest, "host").ab.shapes)
    if (!kernel->shape(s)) return fail(Error::bad_input(kernel_name + " has no shape '" + s + "'"));
  std::string backend = resolve_backend(args.backend);
  if (Status s =
          handoff.open(args.repo, to_optimize_options(args, *manifest, backend).episode.state_dir);
      !s.ok())
    return fail(s.error());
  auto outcome = optimize_kernel(*manifest, *kernel, to_optimize_options(args, *manifest, backend));
  if (!outcome.ok()) return fail(outcome.error());
  const EpisodeRecord& r = outcome->episode.record;
  if (outcome->episode.waiting) return print_waiting(outcome->episode);
  std::printf("episode %s: %zu iterations, %s\n", r.id.c_str(), r.iterations.size(),
              r.stop_reason.c_str());
  TextTable iters({"iter", "outcome", "change", "speedup"});
  for (const IterationRecord& it : r.iterations) {
    std::string change = string_field(it.plan, "change");
    if (change.size() > 60) change = change.substr(0, 57) + "...";
    iters.add({std::to_string(it.index), it.outcome + (it.accepted ? " *" : ""), change,
               it.evaluation && it.evaluation->correct ? fmt(1 / it.evaluation->geomean_ratio) + "x"
                                                       : "-"});
  }
  std::fputs(iters.render().c_str(), stdout);
  if (r.final_evaluation) {
    TextTable shapes({"shape", "phase", "original", "best", "speedup", "verdict"});
    for (const ShapeEvaluation& s : r.final_evaluation->shapes)
      shapes.add({s.shape, s.phase, format_seconds(s.best_s), format_seconds(s.candidate_s),
                  s.candidate_s > 0 ? fmt(s.best_s / s.candidate_s) + "x" : "-",
                  std::string(to_string(s.verdict))});
    std::printf("\nbest: iteration %d, %sx over the original (geomean)\n", r.best_iteration,
                fmt(1 / r.final_evaluation->geomean_ratio).c_str());
    std::fputs(shapes.render().c_str(), stdout);
  }
  if (outcome->proposal.empty())
    std::printf("\nnot proposed: %s\n",
                no_proposal_reason(r, outcome->workload_validation).c_str());
  if (r.bounds) std::printf("\n%s", r.bounds->text().c_str());
  std::printf("record: %s\n", (outcome->episode.dir / "episode.json").c_str());
  if (!outcome->proposal.empty()) std::printf("proposal: %s\n", outcome->proposal.c_str());
  if (handoff.enabled())
    std::printf("pull request: %s\n",
                handoff.hand_off(*manifest, *kernel, backend, outcome->proposal).c_str());
  return handoff.failed() ? to_int(ExitCode::kInfrastructure) : 0;
}

CommandRegistration registration_optimize(
    "optimize", "Run an optimization episode on one kernel (observe, plan, execute, gate, reflect)",
    [](CLI::App& app) {
      auto kernel = std::make_shared<std::string>();
      auto args = std::make_shared<AgentCliOptions>();
      auto ref = std::make_shared<std::string>();
      app.add_option("kernel", *kernel, "The kernel's name in kgate.json")->required();
      auto handoff = std::make_shared<ProposalHandoff>();
      add_agent_options(app, *args);
      app.add_option("--ref", *ref,
                     "Optimize the kernel as it is at this revision (commit, branch, tag) "
                     "instead of the working tree");
      handoff->add_options(app);
      return [kernel, args, ref, handoff] { return run_at(*kernel, *args, *ref, *handoff); };
    });

}  // namespace
}  // namespace kgate::cli
