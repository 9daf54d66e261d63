// kgate sweep: the nightly job. Baselines first (the gate's baseline store),
// then an episode per kernel; each accepted result is written as a proposal
// and handed to the bot, which opens (or updates) its pull request on the
// configured forge: the local forge when nothing is configured.
//
// Baselines and episodes run in workers, one per device of --gpus at a time
// (agent/sweep_schedule.h); results come back, are tabled and published in
// the sweep's order, so the table and the pull requests do not depend on how
// many GPUs ran them.
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "agent/episode_explanation.h"
#include "agent/episode_turns.h"
#include "agent/experience_store.h"
#include "agent/handoff_provider.h"
#include "agent/persisted_json.h"
#include "agent/sweep_schedule.h"
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

using SteadyClock = std::chrono::steady_clock;

struct SweepArgs {
  bool baselines = true;
  std::string baselines_dir;
  double total_budget_s = 0;
  std::string gpus = "all";
  std::string shard;
};

nlohmann::json error_payload(const Error& e) {
  return {{"ok", false}, {"kind", to_int(e.kind)}, {"message", e.message}};
}

// An Error a worker sent back, or the worker's own failure.
std::optional<Error> worker_error(const JobOutcome& outcome, const nlohmann::json& payload,
                                  const std::string& what) {
  if (!outcome.completed || payload.is_discarded() || !payload.is_object())
    return Error::infrastructure(what + ": its worker" +
                                 (outcome.device ? " on " + outcome.device->label : "") + " " +
                                 (outcome.failure.empty() ? "sent back nothing" : outcome.failure) +
                                 (outcome.err_tail.empty() ? "" : ":\n" + outcome.err_tail));
  if (bool_field(payload, "ok", false)) return std::nullopt;
  const int kind = static_cast<int>(payload.value("kind", to_int(ExitCode::kInfrastructure)));
  return Error{static_cast<ExitCode>(kind), string_field(payload, "message")};
}

// Times each kernel's current version and appends it to
// <dir>/<gpu>/<kernel>.json (dir: <manifest folder>/baselines unless
// --baselines says), as `kgate baseline record` does; one kernel per device
// at a time.
Status record_baselines(const Manifest& manifest, const std::vector<const Kernel*>& kernels,
                        const std::string& backend_name, const std::filesystem::path& dir,
                        SweepSchedule& schedule) {
  std::optional<Error> failed;
  schedule.run(
      kernels.size(),
      [&](size_t job, const SweepDevice&, const std::vector<size_t>&) {
        JobStart s;
        s.body = [&, job] {
          const Kernel& kernel = *kernels[job];
          auto backend = make_backend(backend_name);
          if (!backend.ok()) return error_payload(backend.error()).dump();
          BaselineRecordOptions options;
          options.dir = dir;
          auto recorded = record_baseline(manifest, kernel, **backend, options);
          if (!recorded.ok()) return error_payload(recorded.error()).dump();
          return nlohmann::json{
              {"ok", true},
              {"passed", recorded->passed},
              {"file", recorded->file.string()},
              {"save_error", recorded->save_error ? recorded->save_error->message : ""}}
              .dump();
        };
        return s;
      },
      [&](size_t job, const JobOutcome& outcome) {
        const Kernel& kernel = *kernels[job];
        auto payload = nlohmann::json::parse(outcome.payload, nullptr, false);
        if (auto e = worker_error(outcome, payload, kernel.name + "'s baseline")) {
          if (!failed) failed = *e;
          return;
        }
        if (!bool_field(payload, "passed", false)) {
          warn(kernel.name + " did not pass its checks; no baseline recorded");
          return;
        }
        // A damaged baseline file costs this kernel's baseline, not the sweep.
        if (const std::string e = string_field(payload, "save_error"); !e.empty()) {
          warn(kernel.name + ": no baseline recorded: " + e);
          return;
        }
        progress("baseline recorded: " + string_field(payload, "file"));
      });
  if (failed) return *failed;
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

// The newest lesson when the sweep starts: its episodes read none after it
// but their own (OptimizeOptions::lessons_up_to).
int64_t lessons_at_start(const std::filesystem::path& state_dir) {
  auto store = ExperienceStore::open(state_dir / "experience.sqlite");
  if (!store.ok()) return -1;  // each episode says so itself
  auto last = (*store)->last_id();
  return last.ok() ? *last : -1;
}

int run(const AgentCliOptions& args, ProposalHandoff& handoff, SweepArgs sweep) {
  auto manifest = load_manifest(args.repo);
  if (!manifest.ok()) return fail(manifest.error());
  auto shard = parse_shard(sweep.shard);
  if (!shard.ok()) return fail(shard.error());
  // Before any episode: a forge that cannot open fails in a second, not after an hour.
  if (Status s =
          handoff.open(args.repo, to_optimize_options(args, *manifest, "host").episode.state_dir);
      !s.ok())
    return fail(s.error());
  std::string backend = resolve_backend(args.backend);
  auto devices = sweep_devices(backend, sweep.gpus);
  if (!devices.ok()) return fail(devices.error());
  SweepSchedule schedule(std::move(devices.value()));
  const auto state_dir = to_optimize_options(args, *manifest, backend).episode.state_dir;
  std::string order_note;
  std::optional<TaskList> tasks;
  auto order = sweep_order(*manifest, state_dir, &order_note, &tasks);
  progress(order_note);
  // The kernels this sweep (this shard of it) runs, in the sweep's order.
  std::vector<const Kernel*> runnable;
  size_t position = 0;
  for (const Kernel* k : order) {
    if (!k->implementation(backend)) {
      progress("skipping " + k->name + ": no " + backend + " implementation");
      continue;
    }
    if (shard->takes(position++)) runnable.push_back(k);
  }
  if (shard->count > 1) {
    std::string names;
    for (const Kernel* k : runnable) names += (names.empty() ? "" : ", ") + k->name;
    progress("shard " + shard->text() + ": " + std::to_string(runnable.size()) + " of " +
             std::to_string(position) + " kernels" + (names.empty() ? "" : " (" + names + ")"));
  }

  const std::set<std::string> in_flight =
      args.agent == "handoff" ? handoff_kernels_in_flight(*manifest, state_dir, backend, args.agent)
                              : std::set<std::string>{};
  if (!in_flight.empty()) {
    progress("continuing the hand-off sweep: " + std::to_string(in_flight.size()) +
             " unfinished episodes; baselines were recorded when it started");
  } else if (sweep.baselines) {
    if (Status s = record_baselines(*manifest, runnable, backend, sweep.baselines_dir, schedule);
        !s.ok())
      return fail(s.error());
  } else {
    progress("baselines: skipped (--no-baselines)");
  }

  OptimizeOptions base_options = to_optimize_options(args, *manifest, backend);
  base_options.lessons_up_to = lessons_at_start(state_dir);
  const auto sweep_start = SteadyClock::now();
  // --total-budget-s: per kernel when its turn comes, from what the sweep's
  // devices have left (next_sweep_budget, sweep_time_left); the hottest
  // kernels get the most (without a task list it is split evenly).
  std::map<size_t, std::pair<SteadyClock::time_point, double>> budgets;  // job: start, budget
  auto seconds_since = [](SteadyClock::time_point t) {
    return std::chrono::duration<double>(SteadyClock::now() - t).count();
  };
  TextTable table({"kernel", "iterations", "best", "speedup", "proposal / note", "pull request"});
  bool infrastructure_failed = false;
  bool waiting = false;  // a hand-off episode stopped at a model turn
  auto row_payload = [](std::vector<std::string> row) {
    return nlohmann::json{{"row", std::move(row)}}.dump();
  };

  schedule.run(
      runnable.size(),
      [&](size_t job, const SweepDevice& device, const std::vector<size_t>& running) {
        const Kernel& kernel = *runnable[job];
        JobStart s;
        if (!in_flight.empty() && !in_flight.count(kernel.name)) {
          s.payload =
              row_payload({kernel.name, "-", "-", "-", "done earlier in this hand-off sweep", "-"});
          return s;
        }
        OptimizeOptions options = base_options;
        if (sweep.total_budget_s > 0) {
          const std::vector<const Kernel*> rest(runnable.begin() + static_cast<long>(job),
                                                runnable.end());
          const double elapsed = seconds_since(sweep_start);
          std::vector<double> running_left;
          for (size_t r : running)
            running_left.push_back(budgets[r].second - seconds_since(budgets[r].first));
          const double left = sweep_time_left(sweep.total_budget_s, elapsed,
                                              schedule.devices().size(), running_left);
          // No episode may be planned past the sweep's end.
          const double budget = std::min(next_sweep_budget(rest, tasks ? &*tasks : nullptr, left),
                                         sweep.total_budget_s - elapsed);
          if (budget <= 0) {
            const std::string used =
                "total budget (" + format_number(sweep.total_budget_s) + " s) used";
            progress("sweep: " + kernel.name + " skipped: the " + used);
            s.payload = row_payload({kernel.name, "-", "-", "-", "skipped: " + used, "-"});
            return s;
          }
          options.episode.budget_s = budget;
          budgets[job] = {SteadyClock::now(), budget};
          progress("sweep: " + kernel.name +
                   (schedule.devices().size() > 1 ? " on " + device.label : "") + " (budget " +
                   format_number(budget) + " s of the " + format_number(left) + " s left of " +
                   format_number(sweep.total_budget_s) + " s)");
        } else {
          progress("sweep: " + kernel.name +
                   (schedule.devices().size() > 1 ? " on " + device.label : ""));
        }
        s.body = [&manifest, &kernel, options] {
          auto outcome = optimize_kernel(*manifest, kernel, options);
          if (!outcome.ok()) return error_payload(outcome.error()).dump();
          nlohmann::json j = outcome->to_json();
          j["ok"] = true;
          return j.dump();
        };
        return s;
      },
      [&](size_t job, const JobOutcome& done) {
        const Kernel& kernel = *runnable[job];
        auto payload = nlohmann::json::parse(done.payload, nullptr, false);
        if (payload.is_object() && payload.contains("row")) {
          table.add(payload["row"].get<std::vector<std::string>>());
          return;
        }
        const std::optional<Error> failure =
            worker_error(done, payload, kernel.name + "'s episode");
        auto outcome =
            failure ? Result<OptimizeOutcome>(*failure) : OptimizeOutcome::from_json(payload);
        if (!outcome.ok()) {
          warn(kernel.name + ": " + outcome.error().message);
          infrastructure_failed |= outcome.error().kind == ExitCode::kInfrastructure;
          table.add(
              {kernel.name, "-", "-", "-", "error: " + outcome.error().message.substr(0, 80), "-"});
          return;
        }
        const EpisodeRecord& r = outcome->episode.record;
        if (outcome->episode.waiting) {  // nothing for the bot before it ends
          waiting = true;
          table.add({kernel.name, std::to_string(r.iterations.size()),
                     std::to_string(r.best_iteration), "-",
                     waiting_line(*outcome->episode.waiting) + ": " +
                         (outcome->episode.dir / outcome->episode.waiting->request).string(),
                     "-"});
          return;
        }
        std::string pr = handoff.hand_off(*manifest, kernel, backend, outcome->proposal);
        table.add(
            {kernel.name, std::to_string(r.iterations.size()), std::to_string(r.best_iteration),
             r.final_evaluation ? format_number(1 / r.final_evaluation->geomean_ratio) + "x" : "-",
             outcome->proposal.empty() ? no_proposal_reason(r, outcome->workload_validation)
                                       : outcome->proposal.string(),
             pr});
      });
  std::fputs(table.render().c_str(), stdout);
  if (infrastructure_failed || handoff.failed()) return to_int(ExitCode::kInfrastructure);
  return waiting ? to_int(kWaitingForAnswer) : 0;
}

CommandRegistration registration_sweep(
    "sweep", "Run an optimization episode on every kernel and open pull requests for the gains",
    [](CLI::App& app) {
      auto args = std::make_shared<AgentCliOptions>();
      auto handoff = std::make_shared<ProposalHandoff>();
      auto sweep = std::make_shared<SweepArgs>();
      auto no_baselines = std::make_shared<bool>(false);
      add_agent_options(app, *args);
      handoff->add_options(app);
      app.add_flag("--no-baselines", *no_baselines, "Do not record baselines before the episodes");
      app.add_option("--baselines", sweep->baselines_dir,
                     "Where the baselines go (default: baselines/ beside kgate.json)");
      app.add_option("--total-budget-s", sweep->total_budget_s,
                     "Wall time of all episodes together, split by the workload's GPU time "
                     "(half evenly, half by share; replaces --budget-s)")
          ->check(CLI::NonNegativeNumber);
      app.add_option("--gpus", sweep->gpus,
                     "The GPUs whose workers share the episodes, one episode per GPU at a time: "
                     "all, or indices and ranges (0,2 or 0-3) after CUDA_VISIBLE_DEVICES; on the "
                     "host backend each index is a worker on the CPU")
          ->capture_default_str();
      app.add_option("--shard", sweep->shard,
                     "J/K: only shard J of K (from 0) of the kernels, for a sweep spread over "
                     "several runners (workflows/kgate-nightly.yml)");
      return [args, handoff, sweep, no_baselines] {
        SweepArgs s = *sweep;
        s.baselines = !*no_baselines;
        return run(*args, *handoff, s);
      };
    });

}  // namespace
}  // namespace kgate::cli
