// kgate sweep: the nightly job. Baselines first (when the gate's baseline
// store is in this build), then an episode per kernel, each accepted result
// written as a proposal for the bot.
#include <cstdio>
#include <sstream>

#include "cli/agent_options.h"
#include "cli/command.h"
#include "core/log.h"
#include "core/manifest_loader.h"
#include "core/text_table.h"

namespace kgate::cli {
namespace {

int run(const AgentCliOptions& args) {
  auto manifest = load_manifest(args.repo);
  if (!manifest.ok()) return fail(manifest.error());
  std::string backend = resolve_backend(args.backend);
  // TODO(gate): record baselines through the gate's baseline store once it lands.
  progress("baselines: skipped (the gate's baseline store is not part of this build yet)");
  if (!manifest->workload.is_null())
    progress(
        "workload profile: not used yet (hottest-first ordering comes with the profile feature); "
        "sweeping every kernel in manifest order");
  TextTable table({"kernel", "iterations", "best", "speedup", "proposal / note"});
  bool infrastructure_failed = false;
  for (const Kernel& kernel : manifest->kernels) {
    if (!kernel.implementation(backend)) {
      progress("skipping " + kernel.name + ": no " + backend + " implementation");
      continue;
    }
    progress("sweep: " + kernel.name);
    auto outcome =
        optimize_kernel(*manifest, kernel, to_optimize_options(args, *manifest, backend));
    if (!outcome.ok()) {
      warn(kernel.name + ": " + outcome.error().message);
      infrastructure_failed |= outcome.error().kind == ExitCode::kInfrastructure;
      table.add({kernel.name, "-", "-", "-", "error: " + outcome.error().message.substr(0, 80)});
      continue;
    }
    const EpisodeRecord& r = outcome->episode.record;
    std::ostringstream speed;
    speed.precision(3);
    if (r.final_evaluation)
      speed << 1 / r.final_evaluation->geomean_ratio << "x";
    else
      speed << "-";
    table.add({kernel.name, std::to_string(r.iterations.size()), std::to_string(r.best_iteration),
               speed.str(),
               outcome->proposal.empty() ? "no improvement" : outcome->proposal.string()});
  }
  std::fputs(table.render().c_str(), stdout);
  return infrastructure_failed ? to_int(ExitCode::kInfrastructure) : 0;
}

CommandRegistration registration("sweep",
                                 "Run an optimization episode on every kernel and write proposals",
                                 [](CLI::App& app) {
                                   auto args = std::make_shared<AgentCliOptions>();
                                   add_agent_options(app, *args);
                                   return [args] { return run(*args); };
                                 });

}  // namespace
}  // namespace kgate::cli
