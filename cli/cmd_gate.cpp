// kgate gate --repo DIR --base REV --head REV: gate the kernels a change
// touches. Both revisions are read with libgit2 into temporary folders; the
// manifest comes from each revision; results go to stdout and to the
// requested reports (JSON, Markdown, JUnit, GitHub Actions).
#include <unistd.h>

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
#include "gate/ab_gate.h"
#include "gate/baseline_store.h"
#include "gate/gate_report.h"
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
  std::string baselines;     // empty: <head tree>/baselines when present
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

// A temporary folder removed on scope exit. Invariant: path exists while alive.
class ScratchDir {
 public:
  static Result<ScratchDir> make() {
    std::string templ = (std::filesystem::temp_directory_path() / "kgate-gate-XXXXXX").string();
    if (!mkdtemp(templ.data()))
      return Error::infrastructure("cannot create a temporary folder in " + templ);
    return ScratchDir(templ);
  }
  ScratchDir(ScratchDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  explicit ScratchDir(std::filesystem::path p) : path_(std::move(p)) {}
  std::filesystem::path path_;
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

// In-model validation of head against base (gate/workload_validation.h): outputs must
// match and no phase may be slower; a gain is not required of a pull request.
nlohmann::json gate_in_workload(const Manifest* base, const Manifest& head, bool sanitize) {
  auto spec = workload_spec(head);
  if (!spec) return nlohmann::json();
  auto error = [](const std::string& why) {
    return nlohmann::json{{"status", "error"}, {"passed", false}, {"reason", why}};
  };
  if (!base) return error("the base has no loadable kgate.json to build its workload from");
  WorkloadValidationOptions options;
  options.require_gain = false;
  options.sanitize = sanitize;
  options.max_regression = spec->max_regression.value_or(head.gate.max_regression);
  progress("validating head inside the workload");
  auto v = validate_in_workload(*spec, base->root, head.root, options);
  return v.ok() ? v->to_json() : error(v.error().message);
}

// A revision's kgate.json, loaded with messages that name the revision and
// the file as the repository has it, never the temporary folder it was
// read into: "head (abc1234): kgate.json: kernels[2].launch.grid[0]: ...".
struct RevisionManifest {
  std::optional<Manifest> manifest;  // set when it loads
  bool present = false;              // a kgate.json exists in the revision
  std::string file;                  // "kgate.json" or ".github/kgate.json"
  std::string error;                 // why it does not load
};

RevisionManifest load_revision_manifest(const std::filesystem::path& tree, const std::string& side,
                                        const std::string& commit) {
  RevisionManifest r;
  auto path = find_manifest(tree);
  if (!path) return r;
  r.present = true;
  r.file = std::filesystem::relative(*path, tree).generic_string();
  std::string label = side + " (" + commit.substr(0, 7) + ")";
  auto text = read_file(*path);
  if (!text.ok()) {
    r.error = label + ": " + r.file + ": cannot be read";
    return r;
  }
  std::filesystem::path root = path->parent_path();
  if (root.filename() == ".github") root = root.parent_path();
  auto loaded = parse_manifest(*text, r.file, root);
  if (loaded.ok())
    r.manifest = std::move(loaded.value());
  else
    r.error = label + ": " + loaded.error().message;
  return r;
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

// Gates every changed kernel into `report`; an Error stops the gate.
// `infrastructure_error` is set when a shape could not be measured.
Status gate_changes(const GateArgs& args, const Manifest& head_manifest,
                    const Manifest* base_manifest, const std::vector<KernelChange>& changes,
                    const std::string& backend_name, Backend& backend, GateReport& report,
                    bool& infrastructure_error) {
  std::filesystem::path baselines_dir = args.baselines.empty()
                                            ? head_manifest.root / "baselines"
                                            : std::filesystem::path(args.baselines);
  GateOptions options;
  options.seed = args.seed;
  options.gpu = args.gpu;
  GatePolicy policy = head_manifest.gate;
  if (args.budget_s > 0) policy.budget_s = args.budget_s;
  if (!args.oracle.empty())
    policy.oracle =
        args.oracle == "base" ? GatePolicy::Oracle::kBase : GatePolicy::Oracle::kReference;
  options.policy = policy;
  // A seed given by hand repeats: slow host references are worth keeping on
  // disk for the next run. A drawn seed never comes back.
  ReferenceStore store;
  if (args.seed != 0) options.reference_store = &store;
  if (!args.sanitize_kernels.empty()) {
    auto tools = sanitizer_tools(args.sanitize_kernels);
    if (!tools.ok()) return tools.error();
    options.sanitize = *tools;
  }
  for (const KernelChange& change : changes) {
    const Kernel& kernel = *head_manifest.kernel(change.kernel);
    if (!kernel.implementation(backend_name)) {
      report.notes.push_back(kernel.name + ": no \"" + backend_name +
                             "\" implementation, not gated");
      continue;
    }
    progress("gating " + kernel.name + ": " + change.why);
    GateSources sources;
    sources.head.root = head_manifest.root;
    if (!change.is_new) {
      const Kernel* before = base_manifest->kernel(kernel.name);
      if (before && before->implementation(backend_name)) {
        GateSide base;
        base.kernel = before;
        base.root = base_manifest->root;
        sources.base = base;
      }
    }
    auto gated = gate_kernel(head_manifest, kernel, backend, sources, options);
    if (!gated.ok()) {
      if (gated.error().kind == ExitCode::kInfrastructure) return gated.error();
      return gated.error().with_context(kernel.name);
    }
    gated->why = change.why;
    for (const ShapeGate& s : gated->shapes) infrastructure_error |= s.verdict == Verdict::kError;
    if (!gated->device.name.empty()) {
      auto stored = load_baseline(baseline_path(baselines_dir, gated->device.name, kernel.name));
      if (!stored.ok())
        warn(stored.error().message);
      else if (*stored && (*stored)->latest())
        attach_baseline(*gated, *(*stored)->latest());
    }
    report.kernels.push_back(std::move(gated.value()));
  }
  return {};
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

int run(const GateArgs& args) {
  if (!args.sanitize_kernels.empty())
    if (auto tools = sanitizer_tools(args.sanitize_kernels); !tools.ok())
      return fail(tools.error());
  auto repo = GitRepository::open(args.repo);
  if (!repo.ok()) return fail(repo.error());
  auto base_commit = (*repo)->resolve(args.base);
  if (!base_commit.ok()) return fail(base_commit.error().with_context("--base"));
  auto head_commit = (*repo)->resolve(args.head);
  if (!head_commit.ok()) return fail(head_commit.error().with_context("--head"));

  auto scratch = ScratchDir::make();
  if (!scratch.ok()) return fail(scratch.error());
  std::filesystem::path base_tree = scratch->path() / "base", head_tree = scratch->path() / "head";
  progress("reading " + args.base + " (" + base_commit->substr(0, 12) + ") and " + args.head +
           " (" + head_commit->substr(0, 12) + ")");
  if (Status s = (*repo)->materialize(*base_commit, base_tree); !s.ok()) return fail(s.error());
  if (Status s = (*repo)->materialize(*head_commit, head_tree); !s.ok()) return fail(s.error());

  RevisionManifest head_manifest = load_revision_manifest(head_tree, "head", *head_commit);
  if (!head_manifest.present)
    return fail(Error::bad_input("no kgate.json (or .github/kgate.json) in " + args.head));
  std::string manifest_dir;
  if (head_manifest.manifest) {
    manifest_dir =
        std::filesystem::relative(head_manifest.manifest->root, head_tree).generic_string();
    if (manifest_dir == ".") manifest_dir.clear();
  }

  GateReport report;
  report.repository = (*repo)->workdir().filename().string();
  if (report.repository.empty())
    report.repository = (*repo)->workdir().parent_path().filename().string();
  report.base = args.base;
  report.head = args.head;
  report.base_commit = *base_commit;
  report.head_commit = *head_commit;
  report.manifest_dir = manifest_dir;
  report.pull_number = args.pull_number;
  // A head whose kgate.json does not load is a failed check of the change:
  // reported like any other failure, with the revision and the JSON path.
  report.manifest_error = head_manifest.error;
  report.manifest_file = head_manifest.file;

  RevisionManifest base_manifest = load_revision_manifest(base_tree, "base", *base_commit);
  if (!base_manifest.present)
    report.notes.push_back("the base has no kgate.json; every kernel is checked as new");
  else if (!base_manifest.manifest)
    report.notes.push_back("the base's kgate.json does not load (" + base_manifest.error +
                           "); every kernel is checked as new");
  const Manifest* base = base_manifest.manifest ? &*base_manifest.manifest : nullptr;

  std::string backend_name = args.backend == "auto" ? default_backend_name() : args.backend;
  auto backend = make_backend(backend_name);
  if (!backend.ok()) return fail(backend.error());
  if (Status s = (*backend)->available(); !s.ok()) return fail(s.error());

  std::vector<KernelChange> changes;
  if (head_manifest.manifest) {
    auto changed = (*repo)->changed_paths(*base_commit, *head_commit);
    if (!changed.ok()) return fail(changed.error());
    changes = changed_kernels(base, *head_manifest.manifest, backend_name, *changed, manifest_dir,
                              args.all);
    if (!args.kernel.empty()) {
      if (!head_manifest.manifest->kernel(args.kernel))
        return fail(Error::bad_input("no kernel '" + args.kernel + "' in the head's kgate.json"));
      std::erase_if(changes, [&](const KernelChange& c) { return c.kernel != args.kernel; });
    }
    if (changes.empty())
      report.notes.push_back("no kernel changed between " + args.base + " and " + args.head);
  }

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
    auto started = bot::start_check_run(*forge, *head_commit);
    if (!started.ok()) return fail(started.error().with_context("starting the check run"));
    check_run.emplace(std::move(started.value()));
  }
  // Temporary folders never reach a message: paths read as in the repository.
  auto unscratch = [&](std::string text) {
    for (const auto& tree : {head_tree, base_tree, scratch->path()}) {
      std::string from = tree.string() + "/";
      for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at))
        text.replace(at, from.size(), "");
    }
    return text;
  };
  // An error after the start still completes the check run, so none stays in progress.
  auto stop = [&](Error e) {
    e.message = unscratch(e.message);
    bot::CheckRunReport stopped{.title = "kgate: could not finish",
                                .conclusion = "neutral",
                                .summary_markdown = "kgate stopped: " + e.message};
    if (check_run) (void)check_run->finish(stopped);
    if (!args.check_report.empty())
      (void)write_file_atomic(args.check_report, bot::check_report_to_json(stopped).dump(2) + "\n");
    return fail(e);
  };

  bool infrastructure_error = false;
  if (head_manifest.manifest) {
    if (Status s = gate_changes(args, *head_manifest.manifest, base, changes, backend_name,
                                **backend, report, infrastructure_error);
        !s.ok())
      return stop(s.error());
    if (args.workload && !changes.empty())
      report.workload = gate_in_workload(base, *head_manifest.manifest, args.sanitize);
  }
  if (args.accept_regression) {
    // Who accepted it travels with the job (`/kgate accept-regression` by a maintainer).
    const char* reason = std::getenv("KGATE_JOB_REASON");
    int accepted = accept_regressions(report, reason && *reason ? reason : "--accept-regression");
    progress(std::to_string(accepted) + " slower shape(s) accepted as a regression");
  }
  for (const auto& tree : {head_tree, base_tree, scratch->path()})
    rewrite_paths(report, tree.string() + "/", "");

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

  bool failed_check = !report.manifest_error.empty();
  for (const KernelGate& k : report.kernels) {
    if (!k.head_compiled) failed_check = true;
    for (const ShapeGate& s : k.shapes) failed_check |= s.fails && s.verdict != Verdict::kError;
  }
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
  if (failed_check) return to_int(ExitCode::kCheckFailed);
  if (infrastructure_error) return to_int(ExitCode::kInfrastructure);
  return 0;
}

CommandRegistration registration(
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
      app.add_option("--kernel", args->kernel, "Only this kernel");
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
      app.add_option("--baselines", args->baselines,
                     "Folder of stored baselines to compare head with (default: baselines/ of the "
                     "head revision)");
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
