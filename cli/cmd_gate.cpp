// kgate gate --repo DIR --base REV --head REV: gate the kernels a change
// touches. The gate itself is gate/gate_run.h; this file turns flags into its
// options, publishes the check run, and writes the results to stdout and to
// the requested reports (JSON, Markdown, JUnit, GitHub Actions).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>

#include "bot/check_report_file.h"
#include "bot/check_run_publisher.h"
#include "bot/forge_config.h"
#include "bot/gate_check_run.h"
#include "cli/command.h"
#include "core/file_util.h"
#include "core/log.h"
#include "core/manifest_loader.h"
#include "core/number_format.h"
#include "core/text_table.h"
#include "gate/gate_report.h"
#include "gate/gate_run.h"
#include "gate/git_repository.h"
#include "gate/kernel_changes.h"
#include "gate/workload_validation.h"
#include "runner/reference_store.h"

namespace kgate::cli {
namespace {

struct GateArgs {
  std::string repo = ".";
  std::string base, head;
  bool all = false;
  std::string kernel;
  std::string backend = "auto";
  std::string json, markdown, junit;
  std::string check_report;  // the check run's report as JSON, for `kgate publish-check`
  std::string baselines;     // empty: default_baseline_dir of the head (gate/baseline_dir.h)
  double budget_s = 0;       // 0: the manifest's
  uint64_t seed = 0;
  int gpu = 0;
  std::string forge;        // empty: publish nowhere; "local" or "github"
  std::string github_repo;  // OWNER/NAME for --forge github
  std::string github_api_url;
  bool commit_statuses = false;
  bool workload = false;  // also validate head inside the manifest's workload
  bool sanitize = false;
  std::string sanitize_kernels;  // "memcheck,racecheck": compute-sanitizer on each shape's check
  int64_t pull_number = 0;       // --pr: the pull request this gate is for
  bool accept_regression = false;
  std::string oracle;  // empty: the manifest's gate.oracle
};

Status append_to_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::app | std::ios::binary);
  out << text;
  if (!out) return Error::infrastructure("cannot append to " + path);
  return {};
}

std::string change_cell(const ShapeGate& s) {
  return format_change(s.interval);
}

// "memcheck,racecheck" -> {"memcheck", "racecheck"}.
Result<std::vector<std::string>> sanitizer_tools(const std::string& list) {
  std::vector<std::string> tools;
  std::stringstream in(list);
  for (std::string tool; std::getline(in, tool, ',');) {
    if (!is_sanitizer_tool(tool))
      return Error::bad_input("--sanitize-kernels: '" + tool +
                              "' is not memcheck, racecheck, initcheck or synccheck");
    tools.push_back(tool);
  }
  return tools;
}

// The terminal table on stdout.
void print_report(const GateReport& report) {
  TextTable table(
      {"kernel", "shape", "phase", "base", "head", "change [interval]", "rounds", "verdict"});
  for (const KernelGate& k : report.kernels) {
    if (!k.head_compiled) {
      table.add({k.kernel, "-", "-", "-", "-", "-", "-", "does not compile"});
      std::fprintf(stderr, "%s does not compile:\n%s", k.kernel.c_str(),
                   k.head_compile_error.c_str());
    }
    for (const ShapeGate& s : k.shapes) {
      std::string verdict(to_string(s.verdict));
      if (s.fails) verdict += " (FAIL)";
      if (!s.reason.empty()) verdict += ": " + s.reason;
      if (!s.base_note.empty()) verdict += " [base: " + s.base_note + "]";
      table.add({k.kernel, s.shape, s.phase,
                 s.base_median_s > 0 ? format_seconds(s.base_median_s) : "-",
                 s.head_median_s > 0 ? format_seconds(s.head_median_s) : "-", change_cell(s),
                 std::to_string(s.rounds), verdict});
    }
  }
  if (!report.manifest_error.empty())
    std::printf("the head's kgate.json does not load: %s\n", report.manifest_error.c_str());
  for (const std::string& n : report.notes) std::printf("note: %s\n", n.c_str());
  for (const KernelGate& k : report.kernels)
    for (const std::string& n : k.notes) std::printf("note: %s: %s\n", k.kernel.c_str(), n.c_str());
  if (!report.kernels.empty()) std::fputs(table.render().c_str(), stdout);
  std::printf("%s\n", report.passed() ? "gate: passed" : "gate: FAILED");
}

// The use case's options from the flags.
Result<GateRunOptions> gate_options(const GateArgs& args) {
  GateRunOptions options;
  options.all = args.all;
  options.kernel = args.kernel;
  options.backend = args.backend;
  options.baselines = args.baselines;
  options.budget_s = args.budget_s;
  if (!args.oracle.empty())
    options.oracle =
        args.oracle == "base" ? GatePolicy::Oracle::kBase : GatePolicy::Oracle::kReference;
  options.seed = args.seed;
  options.gpu = args.gpu;
  if (!args.sanitize_kernels.empty()) {
    auto tools = sanitizer_tools(args.sanitize_kernels);
    if (!tools.ok()) return tools.error();
    options.sanitize_kernels = *tools;
  }
  options.workload = args.workload;
  options.sanitize = args.sanitize;
  options.pull_number = args.pull_number;
  if (args.accept_regression) {
    // Who accepted it travels with the job (`/kgate accept-regression` by a maintainer).
    const char* reason = std::getenv("KGATE_JOB_REASON");
    options.accept_regression_by = reason && *reason ? reason : "--accept-regression";
  }
  return options;
}

int run(const GateArgs& args) {
  auto options = gate_options(args);
  if (!options.ok()) return fail(options.error());
  auto gate = GateRun::prepare(args.repo, args.base, args.head, *options);
  if (!gate.ok()) return fail(gate.error());

  // The check run shows "in progress" on the head commit while kernels are measured.
  std::unique_ptr<bot::Forge> forge;
  std::optional<bot::CheckRunHandle> check_run;
  if (!args.forge.empty()) {
    bot::ForgeConfig config{.kind = args.forge,
                            .github_repo = args.github_repo,
                            .api_url = args.github_api_url,
                            .use_commit_statuses = args.commit_statuses,
                            .repo_dir = args.repo};
    auto made = bot::make_forge(config);
    if (!made.ok()) return fail(made.error().with_context("--forge"));
    forge = std::move(made.value());
    auto started = bot::start_check_run(*forge, gate->head_commit());
    if (!started.ok()) return fail(started.error().with_context("starting the check run"));
    check_run.emplace(std::move(started.value()));
  }
  // An error after the start still completes the check run, so none stays in progress.
  auto stop = [&](const Error& e) {
    bot::CheckRunReport stopped{.title = "kgate: could not finish",
                                .conclusion = "neutral",
                                .summary_markdown = "kgate stopped: " + e.message};
    if (check_run) (void)check_run->finish(stopped);
    if (!args.check_report.empty())
      (void)write_file_atomic(args.check_report, bot::check_report_to_json(stopped).dump(2) + "\n");
    return fail(e);
  };

  auto result = gate->measure();
  if (!result.ok()) return stop(result.error());
  const GateReport& report = result->report;

  print_report(report);
  if (!args.json.empty())
    if (Status s = write_file_atomic(args.json, report.to_json().dump(2) + "\n"); !s.ok())
      return stop(s.error());
  std::string markdown = render_markdown(report);
  if (!args.markdown.empty())
    if (Status s = write_file_atomic(args.markdown, markdown); !s.ok()) return stop(s.error());
  if (!args.junit.empty())
    if (Status s = write_file_atomic(args.junit, render_junit(report)); !s.ok())
      return stop(s.error());
  if (const char* gha = std::getenv("GITHUB_ACTIONS"); gha && std::string(gha) == "true") {
    if (const char* summary = std::getenv("GITHUB_STEP_SUMMARY"); summary && *summary)
      if (Status s = append_to_file(summary, markdown + "\n"); !s.ok()) warn(s.error().message);
    std::fputs(render_github_annotations(report).c_str(), stdout);
  }
  std::fflush(stdout);

  const bot::CheckRunReport verdict = bot::gate_check_run(report, markdown);
  if (!args.check_report.empty())
    if (Status s =
            write_file_atomic(args.check_report, bot::check_report_to_json(verdict).dump(2) + "\n");
        !s.ok())
      return stop(s.error());
  if (check_run) {
    // The verdict, with an annotation on the kernel's source for each failure.
    if (Status s = check_run->finish(verdict); !s.ok())
      return fail(s.error().with_context("publishing the check run"));
    progress("published the check run through the " + forge->describe());
  }
  return result->exit_code();
}

CommandRegistration registration_gate(
    "gate", "Gate the kernels changed between two git revisions (correctness + A/B timing)",
    [](CLI::App& app) {
      auto args = std::make_shared<GateArgs>();
      app.add_option("--repo", args->repo, "The git repository (any folder inside it)")
          ->capture_default_str();
      app.add_option("--base", args->base, "Base revision (branch, tag, commit, HEAD~1)")
          ->required();
      app.add_option("--head", args->head, "Head revision")->required();
      app.add_flag("--all", args->all, "Gate every kernel, changed or not");
      app.add_option("--pr", args->pull_number,
                     "The pull request gated: named in the report and the check run (0: none)")
          ->check(CLI::NonNegativeNumber);
      app.add_flag("--accept-regression", args->accept_regression,
                   "A shape that is only slower passes, recorded as an accepted regression "
                   "(incorrect or failing kernels still fail)");
      app.add_option("--kernel", args->kernel,
                     "Only these kernels (a name, or names joined by commas)");
      app.add_option("--backend", args->backend, "host, cuda, or auto (cuda when a GPU is found)")
          ->check(CLI::IsMember({"auto", "host", "cuda"}))
          ->capture_default_str();
      app.add_option("--json", args->json, "Write the full report as JSON to this file");
      app.add_option("--markdown", args->markdown, "Write the Markdown summary to this file");
      app.add_option("--junit", args->junit, "Write JUnit XML to this file");
      app.add_option("--check-report", args->check_report,
                     "Write the check run's report (title, conclusion, summary, annotations) as "
                     "JSON to this file, for `kgate publish-check` in a job that holds the token");
      app.add_option("--forge", args->forge,
                     "Publish the verdict as a check run: local (under .kgate/) or github")
          ->check(CLI::IsMember({"local", "github"}));
      app.add_option("--github-repo", args->github_repo,
                     "OWNER/NAME for --forge github (default: $GITHUB_REPOSITORY)");
      app.add_option("--github-api-url", args->github_api_url,
                     "GitHub Enterprise: https://HOST/api/v3 (default: $GITHUB_API_URL)");
      app.add_flag("--commit-statuses", args->commit_statuses,
                   "Commit statuses instead of a check run (a token without checks:write)");
      app.add_option(
          "--baselines", args->baselines,
          "Folder of stored baselines to compare head with (default: baselines/ beside the "
          "head's kgate.json; for kgate's bundled examples, baselines/<example> of its "
          "tree)");
      app.add_option("--budget", args->budget_s,
                     "Timing budget per kernel-shape in seconds (default: the manifest's)");
      app.add_option("--seed", args->seed,
                     "Input seed (default: drawn from the clock, recorded in --json)");
      app.add_flag("--workload", args->workload,
                   "Also run the manifest's workload with base and head: outputs must match, no "
                   "phase slower");
      app.add_flag("--sanitize", args->sanitize,
                   "With --workload: one head run under compute-sanitizer");
      app.add_option("--sanitize-kernels", args->sanitize_kernels,
                     "compute-sanitizer tools (memcheck,racecheck,initcheck,synccheck) on the "
                     "head's check of every gated shape (cuda; default: the manifest's "
                     "gate.sanitize)");
      app.add_option("--gpu", args->gpu, "GPU index (after CUDA_VISIBLE_DEVICES)")
          ->capture_default_str();
      app.add_option("--oracle", args->oracle,
                     "What judges shapes too large for the host reference when there is no "
                     "reference kernel: reference (the host reference), or base (the base "
                     "revision's outputs, checked against the reference on the small shapes) "
                     "(default: the manifest's gate.oracle)")
          ->check(CLI::IsMember({"reference", "base"}));
      return [args] { return run(*args); };
    });

}  // namespace
}  // namespace kgate::cli
