// kgate sweep: the nightly job. Baselines first (the gate's baseline store),
// then an episode per kernel; each accepted result is written as a proposal
// and handed to the bot, which opens (or updates) its pull request on the
// configured forge: the local forge when nothing is configured.
#include <chrono>
#include <cstdio>
#include <optional>
#include <set>
#include <sstream>

#include "agent/episode_explanation.h"
#include "agent/episode_turns.h"
#include "agent/handoff_provider.h"
#include "agent/workload_priority.h"
#include "cli/agent_options.h"
#include "cli/command.h"
#include "cli/proposal_handoff.h"
#include "core/log.h"
#include "core/manifest_loader.h"
#include "core/number_format.h"
#include "core/text_table.h"
#include "gate/baseline_recorder.h"

namespace kgate::cli {
namespace {

// Times each kernel's current version and appends it to
// <dir>/<gpu>/<kernel>.json (dir: <manifest folder>/baselines unless
// --baselines says), as `kgate baseline record` does.
Status record_baselines(const Manifest& manifest, const std::string& backend_name,
                        const std::filesystem::path& dir) {
  auto backend = make_backend(backend_name);
  if (!backend.ok()) return backend.error();
  BaselineRecordOptions options;
  options.dir = dir;
  for (const Kernel& kernel : manifest.kernels) {
    if (!kernel.implementation(backend_name)) continue;
    auto recorded = record_baseline(manifest, kernel, **backend, options);
    if (!recorded.ok()) return recorded.error();
    if (!recorded->passed) {
      warn(kernel.name + " did not pass its checks; no baseline recorded");
      continue;
    }
    // A damaged baseline file costs this kernel's baseline, not the sweep.
    if (recorded->save_error) {
      warn(kernel.name + ": no baseline recorded: " + recorded->save_error->message);
      continue;
    }
    progress("baseline recorded: " + recorded->file.string());
  }
  return {};
}

// A hand-off sweep goes on where it waits: while an episode of it waits for
// an answer, the kernels whose episodes are unfinished (waiting, or
// interrupted) are the ones a run continues. Empty when none waits.
std::set<std::string> handoff_kernels_in_flight(const Manifest& manifest,
                                                const std::filesystem::path& state_dir,
                                                const std::string& backend,
                                                const std::string& agent) {
  std::set<std::string> kernels;
  bool waits = false;
  for (const Kernel& k : manifest.kernels) {
    auto dir = find_unfinished_episode(state_dir / "episodes", k.name, backend, agent);
    if (!dir) continue;
    kernels.insert(k.name);
    auto r = load_episode(*dir);
    waits |= r.ok() && r->status == "waiting";
  }
  return waits ? kernels : std::set<std::string>{};
}

int run(const AgentCliOptions& args, ProposalHandoff& handoff, bool baselines,
        const std::string& baselines_dir, double total_budget_s) {
  auto manifest = load_manifest(args.repo);
  if (!manifest.ok()) return fail(manifest.error());
  // Before any episode: a forge that cannot open fails in a second, not after an hour.
  if (Status s =
          handoff.open(args.repo, to_optimize_options(args, *manifest, "host").episode.state_dir);
      !s.ok())
    return fail(s.error());
  std::string backend = resolve_backend(args.backend);
  const std::set<std::string> in_flight =
      args.agent == "handoff"
          ? handoff_kernels_in_flight(
                *manifest, to_optimize_options(args, *manifest, backend).episode.state_dir, backend,
                args.agent)
          : std::set<std::string>{};
  if (!in_flight.empty()) {
    progress("continuing the hand-off sweep: " + std::to_string(in_flight.size()) +
             " unfinished episodes; baselines were recorded when it started");
    baselines = false;
  } else if (baselines) {
    if (Status s = record_baselines(*manifest, backend, baselines_dir); !s.ok())
      return fail(s.error());
  } else {
    progress("baselines: skipped (--no-baselines)");
  }
  std::string order_note;
  const auto state_dir = to_optimize_options(args, *manifest, backend).episode.state_dir;
  std::optional<TaskList> tasks;
  auto order = sweep_order(*manifest, state_dir, &order_note, &tasks);
  progress(order_note);
  // --total-budget-s: the hottest kernels get the most time (without a task
  // list it is split evenly; sweep_order already said why).
  std::vector<const Kernel*> runnable;
  for (const Kernel* k : order)
    if (k->implementation(backend)) runnable.push_back(k);
  // Each kernel's budget is split from what is left when its turn comes
  // (next_sweep_budget), so the sweep keeps to the total.
  size_t next_runnable = 0;  // index in `runnable` of the next kernel the loop reaches
  const auto sweep_start = std::chrono::steady_clock::now();
  TextTable table({"kernel", "iterations", "best", "speedup", "proposal / note", "pull request"});
  bool infrastructure_failed = false;
  bool waiting = false;  // a hand-off episode stopped at a model turn
  for (const Kernel* kernel_ptr : order) {
    const Kernel& kernel = *kernel_ptr;
    if (!kernel.implementation(backend)) {
      progress("skipping " + kernel.name + ": no " + backend + " implementation");
      continue;
    }
    if (!in_flight.empty() && !in_flight.count(kernel.name)) {
      table.add({kernel.name, "-", "-", "-", "done earlier in this hand-off sweep", "-"});
      ++next_runnable;
      continue;
    }
    OptimizeOptions options = to_optimize_options(args, *manifest, backend);
    const size_t at = next_runnable++;  // this kernel's index in `runnable`
    if (total_budget_s > 0) {
      const std::vector<const Kernel*> rest(runnable.begin() + at, runnable.end());
      const double left =
          total_budget_s -
          std::chrono::duration<double>(std::chrono::steady_clock::now() - sweep_start).count();
      const double budget = next_sweep_budget(rest, tasks ? &*tasks : nullptr, left);
      if (budget <= 0) {
        progress("sweep: " + kernel.name + " skipped: the total budget (" +
                 format_number(total_budget_s) + " s) is used");
        table.add({kernel.name, "-", "-", "-",
                   "skipped: total budget (" + format_number(total_budget_s) + " s) used", "-"});
        continue;
      }
      options.episode.budget_s = budget;
      progress("sweep: " + kernel.name + " (budget " + format_number(budget) + " s of the " +
               format_number(left) + " s left of " + format_number(total_budget_s) + " s)");
    } else {
      progress("sweep: " + kernel.name);
    }
    auto outcome = optimize_kernel(*manifest, kernel, options);
    if (!outcome.ok()) {
      warn(kernel.name + ": " + outcome.error().message);
      infrastructure_failed |= outcome.error().kind == ExitCode::kInfrastructure;
      table.add(
          {kernel.name, "-", "-", "-", "error: " + outcome.error().message.substr(0, 80), "-"});
      continue;
    }
    const EpisodeRecord& r = outcome->episode.record;
    if (outcome->episode.waiting) {  // nothing for the bot before it ends
      waiting = true;
      table.add({kernel.name, std::to_string(r.iterations.size()), std::to_string(r.best_iteration),
                 "-",
                 waiting_line(*outcome->episode.waiting) + ": " +
                     (outcome->episode.dir / outcome->episode.waiting->request).string(),
                 "-"});
      continue;
    }
    std::string pr = handoff.hand_off(*manifest, kernel, backend, outcome->proposal);
    table.add(
        {kernel.name, std::to_string(r.iterations.size()), std::to_string(r.best_iteration),
         r.final_evaluation ? format_number(1 / r.final_evaluation->geomean_ratio) + "x" : "-",
         outcome->proposal.empty() ? no_proposal_reason(r, outcome->workload_validation)
                                   : outcome->proposal.string(),
         pr});
  }
  std::fputs(table.render().c_str(), stdout);
  if (infrastructure_failed || handoff.failed()) return to_int(ExitCode::kInfrastructure);
  return waiting ? to_int(kWaitingForAnswer) : 0;
}

CommandRegistration registration_sweep(
    "sweep", "Run an optimization episode on every kernel and open pull requests for the gains",
    [](CLI::App& app) {
      auto args = std::make_shared<AgentCliOptions>();
      auto handoff = std::make_shared<ProposalHandoff>();
      auto no_baselines = std::make_shared<bool>(false);
      auto total_budget = std::make_shared<double>(0);
      auto baselines_dir = std::make_shared<std::string>();
      add_agent_options(app, *args);
      handoff->add_options(app);
      app.add_flag("--no-baselines", *no_baselines, "Do not record baselines before the episodes");
      app.add_option("--baselines", *baselines_dir,
                     "Where the baselines go (default: baselines/ beside kgate.json)");
      app.add_option("--total-budget-s", *total_budget,
                     "Wall time of all episodes together, split by the workload's GPU time "
                     "(half evenly, half by share; replaces --budget-s)")
          ->check(CLI::NonNegativeNumber);
      return [args, handoff, no_baselines, baselines_dir, total_budget] {
        return run(*args, *handoff, !*no_baselines, *baselines_dir, *total_budget);
      };
    });

}  // namespace
}  // namespace kgate::cli
