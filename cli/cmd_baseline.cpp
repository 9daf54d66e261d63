// kgate baseline record|show|compare|drift: stored per-GPU, per-kernel
// timing baselines (baselines/<gpu-slug>/<kernel>.json) with a history.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>

#include "cli/command.h"
#include "core/log.h"
#include "core/manifest_loader.h"
#include "core/number_format.h"
#include "core/text_table.h"
#include "gate/baseline_dir.h"
#include "gate/baseline_recorder.h"
#include "gate/baseline_store.h"
#include "gate/drift.h"
#include "gate/revision_checkout.h"
#include "runner/kernel_run.h"

namespace kgate::cli {
namespace {

struct BaselineArgs {
  std::string action;
  std::string path = ".";
  std::string kernel;
  std::string dir;  // empty: default_baseline_dir (gate/baseline_dir.h)
  std::string gpu;  // show/drift: only this GPU (name or slug)
  std::string backend = "auto";
  std::string revision;
  std::string ref;  // record/compare: measure this revision instead of the working tree
  int samples = 0;  // 0: the manifest's timing.samples
  uint64_t seed = 0;
  int gpu_index = 0;
  double threshold = 4.0, min_shift = 0.02;
};

// Every baseline file under dir (optionally one GPU slug, one kernel).
std::vector<std::filesystem::path> baseline_files(const std::filesystem::path& dir,
                                                  const std::string& gpu,
                                                  const std::string& kernel) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return files;
  for (const auto& gpu_dir : std::filesystem::directory_iterator(dir, ec)) {
    if (!gpu_dir.is_directory()) continue;
    std::string slug = gpu_dir.path().filename().string();
    if (!gpu.empty() && slug != gpu && slug != gpu_slug(gpu)) continue;
    for (const auto& f : std::filesystem::directory_iterator(gpu_dir.path(), ec)) {
      if (f.path().extension() != ".json") continue;
      if (!kernel.empty() && f.path().stem() != kernel) continue;
      files.push_back(f.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

struct Measured {
  Manifest manifest;
  std::vector<std::pair<const Kernel*, KernelRunReport>> kernels;
};

Result<std::unique_ptr<Backend>> open_backend(const BaselineArgs& args) {
  std::string name = args.backend == "auto" ? default_backend_name() : args.backend;
  auto backend = make_backend(name);
  if (!backend.ok()) return backend.error();
  if (Status s = (*backend)->available(); !s.ok()) return s.error();
  return std::move(backend.value());
}

int measure_and(const BaselineArgs& args, bool record) {
  // --ref: measure the files of that commit (written out through libgit2);
  // the baselines still go to the working tree's baselines/ folder, stamped
  // with the commit id.
  std::optional<RevisionCheckout> checkout;
  std::string revision = args.revision;
  std::filesystem::path manifest_at = args.path;
  if (!args.ref.empty()) {
    auto made = RevisionCheckout::make(args.path, args.ref);
    if (!made.ok()) return fail(made.error().with_context("--ref"));
    checkout.emplace(std::move(made.value()));
    manifest_at = checkout->in_checkout(args.path);
    if (revision.empty()) revision = checkout->commit();
  }
  auto manifest = load_manifest(manifest_at);
  if (!manifest.ok()) return fail(manifest.error());
  std::filesystem::path manifest_root =
      checkout ? checkout->in_workdir(manifest->root) : manifest->root;
  if (!args.kernel.empty() && !manifest->kernel(args.kernel))
    return fail(Error::bad_input("no kernel '" + args.kernel + "' in " + manifest->path.string()));
  auto backend = open_backend(args);
  if (!backend.ok()) return fail(backend.error());
  std::filesystem::path dir =
      args.dir.empty() ? default_baseline_dir(manifest_root) : std::filesystem::path(args.dir);
  TextTable table(record ? std::vector<std::string>{"kernel", "shape", "median", "p10", "p90",
                                                    "samples", "history"}
                         : std::vector<std::string>{"kernel", "shape", "stored median", "P10-P90",
                                                    "now", "change", "in band"});
  bool outside = false;
  for (Kernel kernel : manifest->kernels) {
    if (!args.kernel.empty() && kernel.name != args.kernel) continue;
    const Implementation* impl = kernel.implementation((*backend)->name());
    if (!impl) continue;
    if (args.samples > 0) kernel.timing.samples = args.samples;
    if (record) {
      BaselineRecordOptions options;
      options.dir = dir;
      options.revision = revision;
      options.seed = args.seed;
      options.gpu = args.gpu_index;
      auto recorded = record_baseline(*manifest, kernel, **backend, options);
      if (!recorded.ok()) return fail(recorded.error());
      if (!recorded->passed) {
        warn(kernel.name + " did not pass its checks; not recorded");
        outside = true;
        continue;
      }
      if (recorded->save_error) return fail(*recorded->save_error);
      for (const BaselineShape& s : recorded->entry.shapes)
        table.add({kernel.name, s.shape, format_seconds(s.median_s), format_seconds(s.p10_s),
                   format_seconds(s.p90_s), std::to_string(s.sample_count),
                   std::to_string(recorded->history)});
      progress("recorded " + recorded->file.string());
      continue;
    }
    KernelRunOptions options;
    options.seed = args.seed;
    options.gpu = args.gpu_index;
    auto result = run_kernel(*manifest, kernel, **backend, options);
    if (!result.ok()) return fail(result.error().with_context(kernel.name));
    if (!result->passed()) {
      warn(kernel.name + " did not pass its checks; not compared");
      outside = true;
      continue;
    }
    std::string device = result->shapes.empty() ? "" : result->shapes.front().device.name;
    std::filesystem::path file = baseline_path(dir, device, kernel.name);
    auto stored = load_baseline(file);
    if (!stored.ok()) return fail(stored.error());
    if (!*stored || !(*stored)->latest()) {
      warn("no baseline for " + kernel.name + " on " + device + " (" + file.string() + ")");
      continue;
    }
    for (const ShapeMeasurement& m : result->shapes) {
      auto c = compare_with_baseline(*(*stored)->latest(), m.shape, m.head_median());
      if (!c) continue;
      outside |= !c->within_band && c->ratio > 1 + manifest->gate.max_regression;
      table.add({kernel.name, m.shape, format_seconds(c->median_s),
                 format_seconds(c->p10_s) + " - " + format_seconds(c->p90_s),
                 format_seconds(m.head_median()), format_percent(c->ratio - 1),
                 c->within_band ? "yes" : "no"});
    }
  }
  std::fputs(table.render().c_str(), stdout);
  return !record && outside ? to_int(ExitCode::kCheckFailed) : 0;
}

Result<std::filesystem::path> dir_for(const BaselineArgs& args) {
  if (!args.dir.empty()) return std::filesystem::path(args.dir);
  auto manifest = load_manifest(args.path);
  if (!manifest.ok()) return manifest.error();
  return default_baseline_dir(manifest->root);
}

int show(const BaselineArgs& args) {
  auto dir = dir_for(args);
  if (!dir.ok()) return fail(dir.error());
  auto files = baseline_files(*dir, args.gpu, args.kernel);
  if (files.empty()) {
    std::printf("no baselines under %s\n", dir->string().c_str());
    return 0;
  }
  TextTable table(
      {"gpu", "kernel", "shape", "median", "p10", "p90", "samples", "recorded", "history"});
  for (const auto& f : files) {
    auto file = load_baseline(f);
    if (!file.ok()) return fail(file.error());
    const BaselineEntry* latest = (*file)->latest();
    if (!latest) continue;
    for (const BaselineShape& s : latest->shapes)
      table.add({(*file)->gpu, (*file)->kernel, s.shape, format_seconds(s.median_s),
                 format_seconds(s.p10_s), format_seconds(s.p90_s), std::to_string(s.sample_count),
                 latest->environment.date, std::to_string((*file)->history.size())});
  }
  std::fputs(table.render().c_str(), stdout);
  return 0;
}

int drift(const BaselineArgs& args) {
  auto dir = dir_for(args);
  if (!dir.ok()) return fail(dir.error());
  DriftOptions options;
  options.threshold = args.threshold;
  options.min_shift = args.min_shift;
  TextTable table({"gpu", "kernel", "shape", "entry", "recorded", "before", "after", "change"});
  int found = 0;
  for (const auto& f : baseline_files(*dir, args.gpu, args.kernel)) {
    auto file = load_baseline(f);
    if (!file.ok()) return fail(file.error());
    std::set<std::string> shapes;
    for (const BaselineEntry& e : (*file)->history)
      for (const BaselineShape& s : e.shapes) shapes.insert(s.shape);
    for (const std::string& shape : shapes) {
      std::vector<double> series;
      std::vector<size_t> entry_of;
      for (size_t i = 0; i < (*file)->history.size(); ++i)
        if (const BaselineShape* s = (*file)->history[i].shape(shape)) {
          series.push_back(s->median_s);
          entry_of.push_back(i);
        }
      for (const ChangePoint& p : find_change_points(series, options)) {
        const BaselineEntry& e = (*file)->history[entry_of[p.index]];
        table.add({(*file)->gpu, (*file)->kernel, shape, std::to_string(entry_of[p.index]),
                   e.environment.date, format_seconds(p.before), format_seconds(p.after),
                   format_percent(p.ratio - 1)});
        ++found;
      }
    }
  }
  if (found) std::fputs(table.render().c_str(), stdout);
  std::printf("%d change point%s found\n", found, found == 1 ? "" : "s");
  return 0;
}

CommandRegistration registration_baseline(
    "baseline", "Stored timing baselines per GPU and kernel: record, show, compare, drift",
    [](CLI::App& app) {
      auto args = std::make_shared<BaselineArgs>();
      app.add_option("action", args->action, "record, show, compare or drift")
          ->required()
          ->check(CLI::IsMember({"record", "show", "compare", "drift"}));
      app.add_option("path", args->path, "kgate.json, or a folder holding one")
          ->capture_default_str();
      app.add_option("--repo", args->path, "The same as the path argument (as in other commands)");
      app.add_option("--kernel", args->kernel, "Only this kernel");
      app.add_option(
          "--dir", args->dir,
          "Baselines folder (default: baselines/ beside kgate.json; for an example bundled "
          "with kgate, examples/NAME, the tree's baselines/NAME)");
      app.add_option("--gpu", args->gpu, "show/drift: only this GPU (name or slug)");
      app.add_option("--backend", args->backend, "host, cuda, or auto")
          ->check(CLI::IsMember({"auto", "host", "cuda"}))
          ->capture_default_str();
      app.add_option("--revision", args->revision,
                     "record: the revision measured, stored with the entry");
      app.add_option("--ref", args->ref,
                     "record/compare: measure this revision (commit, branch, tag) instead of the "
                     "working tree; record stores its commit id unless --revision is given");
      app.add_option("--samples", args->samples,
                     "record/compare: samples per shape (default: the manifest's)");
      app.add_option("--seed", args->seed, "Input seed");
      app.add_option("--gpu-index", args->gpu_index, "GPU index")->capture_default_str();
      app.add_option("--threshold", args->threshold, "drift: standardised shift needed")
          ->capture_default_str();
      app.add_option("--min-shift", args->min_shift, "drift: smallest relative change reported")
          ->capture_default_str();
      return [args]() -> int {
        if (args->action == "record") return measure_and(*args, true);
        if (args->action == "compare") return measure_and(*args, false);
        if (args->action == "show") return show(*args);
        return drift(*args);
      };
    });

}  // namespace
}  // namespace kgate::cli
