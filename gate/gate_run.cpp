#include "gate/gate_run.h"

#include <set>

#include "core/exit_code.h"
#include "core/file_util.h"
#include "core/log.h"
#include "core/manifest_loader.h"
#include "gate/ab_gate.h"
#include "gate/baseline_dir.h"
#include "gate/baseline_store.h"
#include "gate/git_repository.h"
#include "gate/workload_validation.h"
#include "runner/reference_store.h"

namespace kgate {
namespace {

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

}  // namespace

int GateResult::exit_code() const {
  if (failed_check) return to_int(ExitCode::kCheckFailed);
  if (infrastructure_error) return to_int(ExitCode::kInfrastructure);
  return 0;
}

struct GateRun::State {
  GateRunOptions options;
  RevisionCheckout base_tree, head_tree;
  RevisionManifest base_manifest, head_manifest;
  std::string backend_name;
  std::unique_ptr<Backend> backend;
  std::vector<KernelChange> changes;
  GateReport report;

  const Manifest* base() const {
    return base_manifest.manifest ? &*base_manifest.manifest : nullptr;
  }
  // Temporary folders never reach a message: paths read as in the repository.
  std::string unscratch(std::string text) const {
    for (const auto& tree : {head_tree.path(), base_tree.path()}) {
      std::string from = tree.string() + "/";
      for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at))
        text.replace(at, from.size(), "");
    }
    return text;
  }
  Status gate_changes(bool& infrastructure_error);
};

GateRun::GateRun(std::unique_ptr<State> state) : state_(std::move(state)) {}
GateRun::GateRun(GateRun&&) noexcept = default;
GateRun::~GateRun() = default;

const std::string& GateRun::head_commit() const {
  return state_->head_tree.commit();
}

Result<GateRun> GateRun::prepare(const std::filesystem::path& repo_dir, const std::string& base,
                                 const std::string& head, const GateRunOptions& options) {
  auto repo = GitRepository::open(repo_dir);
  if (!repo.ok()) return repo.error();
  auto base_commit = (*repo)->resolve(base);
  if (!base_commit.ok()) return base_commit.error().with_context("--base");
  auto head_commit = (*repo)->resolve(head);
  if (!head_commit.ok()) return head_commit.error().with_context("--head");

  progress("reading " + base + " (" + base_commit->substr(0, 12) + ") and " + head + " (" +
           head_commit->substr(0, 12) + ")");
  auto base_tree = RevisionCheckout::make(repo_dir, *base_commit, "kgate-gate-");
  if (!base_tree.ok()) return base_tree.error();
  auto head_tree = RevisionCheckout::make(repo_dir, *head_commit, "kgate-gate-");
  if (!head_tree.ok()) return head_tree.error();
  auto state = std::unique_ptr<State>(new State{.options = options,
                                                .base_tree = std::move(base_tree.value()),
                                                .head_tree = std::move(head_tree.value()),
                                                .base_manifest = {},
                                                .head_manifest = {},
                                                .backend_name = {},
                                                .backend = nullptr,
                                                .changes = {},
                                                .report = {}});

  state->head_manifest = load_revision_manifest(state->head_tree.path(), "head", *head_commit);
  if (!state->head_manifest.present)
    return Error::bad_input("no kgate.json (or .github/kgate.json) in " + head);
  std::string manifest_dir;
  if (state->head_manifest.manifest) {
    manifest_dir =
        std::filesystem::relative(state->head_manifest.manifest->root, state->head_tree.path())
            .generic_string();
    if (manifest_dir == ".") manifest_dir.clear();
  }

  GateReport& report = state->report;
  report.repository = (*repo)->workdir().filename().string();
  if (report.repository.empty())
    report.repository = (*repo)->workdir().parent_path().filename().string();
  report.base = base;
  report.head = head;
  report.base_commit = *base_commit;
  report.head_commit = *head_commit;
  report.manifest_dir = manifest_dir;
  report.pull_number = options.pull_number;
  // A head whose kgate.json does not load is a failed check of the change:
  // reported like any other failure, with the revision and the JSON path.
  report.manifest_error = state->head_manifest.error;
  report.manifest_file = state->head_manifest.file;

  state->base_manifest = load_revision_manifest(state->base_tree.path(), "base", *base_commit);
  if (!state->base_manifest.present)
    report.notes.push_back("the base has no kgate.json; every kernel is checked as new");
  else if (!state->base_manifest.manifest)
    report.notes.push_back("the base's kgate.json does not load (" + state->base_manifest.error +
                           "); every kernel is checked as new");

  state->backend_name = options.backend == "auto" ? default_backend_name() : options.backend;
  auto backend = make_backend(state->backend_name);
  if (!backend.ok()) return backend.error();
  if (Status s = (*backend)->available(); !s.ok()) return s.error();
  state->backend = std::move(backend.value());

  if (const auto& head_manifest = state->head_manifest.manifest) {
    auto changed = (*repo)->changed_paths(*base_commit, *head_commit);
    if (!changed.ok()) return changed.error();
    state->changes = changed_kernels(state->base(), *head_manifest, state->backend_name, *changed,
                                     manifest_dir, options.all);
    if (!options.kernel.empty()) {
      // "a,b,c": the kernels of one file a change touches, in one gate.
      std::set<std::string> wanted;
      for (size_t start = 0; start <= options.kernel.size();) {
        size_t comma = options.kernel.find(',', start);
        if (comma == std::string::npos) comma = options.kernel.size();
        std::string name = options.kernel.substr(start, comma - start);
        if (!name.empty() && !head_manifest->kernel(name))
          return Error::bad_input("no kernel '" + name + "' in the head's kgate.json");
        if (!name.empty()) wanted.insert(name);
        start = comma + 1;
      }
      std::erase_if(state->changes, [&](const KernelChange& c) { return !wanted.count(c.kernel); });
    }
    if (state->changes.empty())
      report.notes.push_back("no kernel changed between " + base + " and " + head);
  }
  return GateRun(std::move(state));
}

// Gates every changed kernel into `report`; an Error stops the gate.
// `infrastructure_error` is set when a shape could not be measured.
Status GateRun::State::gate_changes(bool& infrastructure_error) {
  const Manifest& head = *head_manifest.manifest;
  std::filesystem::path baselines_dir =
      options.baselines.empty() ? default_baseline_dir(head.root) : options.baselines;
  GateOptions gate_options;
  gate_options.seed = options.seed;
  gate_options.gpu = options.gpu;
  GatePolicy policy = head.gate;
  if (options.budget_s > 0) policy.budget_s = options.budget_s;
  if (options.oracle) policy.oracle = *options.oracle;
  gate_options.policy = policy;
  // A seed given by hand repeats: slow host references are worth keeping on
  // disk for the next run. A drawn seed never comes back.
  ReferenceStore store;
  if (options.seed != 0) gate_options.reference_store = &store;
  gate_options.sanitize = options.sanitize_kernels;
  for (const KernelChange& change : changes) {
    const Kernel& kernel = *head.kernel(change.kernel);
    if (!kernel.implementation(backend_name)) {
      report.notes.push_back(kernel.name + ": no \"" + backend_name +
                             "\" implementation, not gated");
      continue;
    }
    progress("gating " + kernel.name + ": " + change.why);
    GateSources sources;
    sources.head.root = head.root;
    if (!change.is_new) {
      const Kernel* before = base()->kernel(kernel.name);
      if (before && before->implementation(backend_name)) {
        GateSide side;
        side.kernel = before;
        side.root = base()->root;
        sources.base = side;
      }
    }
    auto gated = gate_kernel(head, kernel, *backend, sources, gate_options);
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

Result<GateResult> GateRun::measure() {
  State& s = *state_;
  GateResult result;
  if (s.head_manifest.manifest) {
    if (Status status = s.gate_changes(result.infrastructure_error); !status.ok()) {
      Error e = status.error();
      e.message = s.unscratch(e.message);
      return e;
    }
    if (s.options.workload && !s.changes.empty())
      s.report.workload = gate_in_workload(s.base(), *s.head_manifest.manifest, s.options.sanitize);
  }
  if (s.options.accept_regression_by) {
    int accepted = accept_regressions(s.report, *s.options.accept_regression_by);
    progress(std::to_string(accepted) + " slower shape(s) accepted as a regression");
  }
  for (const auto& tree : {s.head_tree.path(), s.base_tree.path()})
    rewrite_paths(s.report, tree.string() + "/", "");

  result.failed_check = !s.report.manifest_error.empty();
  for (const KernelGate& k : s.report.kernels) {
    if (!k.head_compiled) result.failed_check = true;
    for (const ShapeGate& shape : k.shapes)
      result.failed_check |= shape.fails && shape.verdict != Verdict::kError;
  }
  result.report = std::move(s.report);
  return result;
}

Result<GateResult> run_gate(const std::filesystem::path& repo, const std::string& base,
                            const std::string& head, const GateRunOptions& options) {
  auto run = GateRun::prepare(repo, base, head, options);
  if (!run.ok()) return run.error();
  return run->measure();
}

}  // namespace kgate
