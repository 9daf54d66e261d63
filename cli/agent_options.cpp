#include "cli/agent_options.h"

#include <sstream>

#include "core/log.h"
#include "runner/backend.h"

namespace kgate::cli {

void add_agent_options(CLI::App& app, AgentCliOptions& o) {
  app.add_option("--repo", o.repo, "The kernel repository (holding kgate.json)")
      ->capture_default_str();
  app.add_option("--state-dir", o.state_dir,
                 "Where episodes, lessons and proposals go (default: REPO/.kgate)");
  app.add_option("--backend", o.backend, "host, cuda, or auto (cuda when a GPU is found)")
      ->check(CLI::IsMember({"auto", "host", "cuda"}))
      ->capture_default_str();
  app.add_option("--agent", o.agent,
                 "tuner (built in), openai, anthropic, command, handoff (each request left as a "
                 "file, exit code 4 until its answer is there) or replay (--answers)")
      ->check(CLI::IsMember({"tuner", "openai", "anthropic", "command", "handoff", "replay"}))
      ->capture_default_str();
  app.add_option("--answers", o.answers,
                 "For --agent replay: a folder of recorded turns (an episode's turns/ folder) "
                 "whose answers are given again, turn by turn");
  app.add_option("--agent-command", o.agent_command,
                 "For --agent command: run by /bin/sh -c, request JSON on stdin, answer on stdout");
  app.add_option("--agent-timeout", o.agent_timeout_s,
                 "Seconds one answer of the command agent may take")
      ->capture_default_str();
  app.add_option("--max-iters", o.max_iters, "Iteration cap")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--patience", o.patience,
                 "Stop after this many iterations in a row without improvement")
      ->capture_default_str();
  app.add_flag("--reflect-with-plan", o.reflect_with_plan,
               "The agent reflects on an iteration at the start of its next plan, not in a turn "
               "of its own: one hand-off round per iteration");
  app.add_option("--budget-s", o.budget_s, "Wall-time budget of an episode in seconds (0: none)")
      ->capture_default_str();
  app.add_option("--seed", o.seed, "Seed of the tuner's choices and of the inputs")
      ->capture_default_str();
  app.add_flag("--new", o.fresh, "Start a new episode instead of resuming an interrupted one");
  app.add_option("--min-samples", o.min_samples, "Timing samples per version and shape, at least")
      ->capture_default_str();
  app.add_option("--max-samples", o.max_samples, "Timing samples per version and shape, at most")
      ->capture_default_str();
  app.add_option("--shape-budget-s", o.shape_budget_s,
                 "Timing wall time per shape (default: the manifest's gate budget_s)");
  app.add_option("--shapes", o.shapes, "Only these shapes (comma-separated)");
  app.add_option("--phases", o.phases,
                 "Only shapes of these phases (comma-separated, e.g. decode,prefill)");
  app.add_flag("--no-in-model", o.no_in_model,
               "Propose without validating inside the manifest's workload");
  app.add_flag("--sanitize", o.sanitize,
               "In-model validation also runs the candidate under compute-sanitizer");
  app.add_option("--profile", o.profile,
                 "Profile the original and each new best for the agent and the pull request: "
                 "on (with CUPTI counters on a GPU), timing (no counters) or off")
      ->check(CLI::IsMember({"on", "timing", "off"}))
      ->capture_default_str();
  app.add_option("--evaluator", o.evaluator,
                 "gate: the gate's A/B (the only evaluator; kept for scripts that name it)")
      ->check(CLI::IsMember({"gate"}))
      ->capture_default_str();
}

std::string resolve_backend(const std::string& backend) {
  if (backend != "auto") return backend;
  std::string b = default_backend_name();
  progress("backend: " + b + (b == "host" ? " (no GPU found)" : ""));
  return b;
}

OptimizeOptions to_optimize_options(const AgentCliOptions& o, const Manifest& manifest,
                                    const std::string& backend) {
  OptimizeOptions opt;
  opt.provider.name = o.agent;
  opt.provider.command = o.agent_command;
  opt.provider.command_timeout_s = o.agent_timeout_s;
  opt.provider.answers = o.answers;
  opt.episode.backend = backend;
  opt.episode.state_dir =
      o.state_dir.empty() ? default_state_dir(o.repo) : std::filesystem::path(o.state_dir);
  opt.episode.max_iters = o.max_iters;
  opt.episode.patience = o.patience;
  opt.episode.reflect_with_next_plan = o.reflect_with_plan;
  opt.episode.budget_s = o.budget_s;
  opt.episode.seed = o.seed;
  opt.episode.resume = !o.fresh;
  opt.evaluator = o.evaluator;
  opt.in_model = !o.no_in_model;
  opt.in_model_options.sanitize = o.sanitize;
  opt.profile = o.profile != "off";
  opt.profile_counters = o.profile == "on";
  opt.ab.min_samples = o.min_samples;
  opt.ab.max_samples = std::max(o.min_samples, o.max_samples);
  opt.ab.budget_s = o.shape_budget_s > 0 ? o.shape_budget_s : manifest.gate.budget_s;
  std::stringstream ss(o.shapes);
  for (std::string s; std::getline(ss, s, ',');)
    if (!s.empty()) opt.ab.shapes.push_back(s);
  std::stringstream phases(o.phases);
  for (std::string s; std::getline(phases, s, ',');)
    if (!s.empty()) opt.ab.phases.push_back(s);
  return opt;
}

}  // namespace kgate::cli
