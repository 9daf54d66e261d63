// kgate profile KERNEL (or --all): compile each kernel and profile each
// shape, printing the fixed-template summary (what an agent observes and a
// pull request shows) or, with --table, one compact table; --json writes the
// numbers beside it.
#include <algorithm>
#include <cstdio>

#include "cli/command.h"
#include "core/file_util.h"
#include "core/log.h"
#include "core/manifest_loader.h"
#include "runner/profile/kernel_profiler.h"
#include "runner/profile_model/profile_summary.h"
#include "runner/profile_model/profile_table.h"

namespace kgate::cli {
namespace {

struct ProfileArgs {
  std::string kernel;
  bool all = false;
  std::vector<std::string> shapes;
  std::vector<std::string> phases;
  std::string repo = ".";
  std::string backend = "auto";
  std::string json;
  bool table = false;
  int gpu = 0;
  uint64_t seed = 1;
  bool no_counters = false;
};

// The named shapes, then the first shape of each named phase that runs on
// `backend`; empty: every shape.
Result<std::vector<std::string>> pick_shapes(const Kernel& kernel, const ProfileArgs& args,
                                             const std::string& backend) {
  std::vector<std::string> shapes = args.shapes;
  for (const std::string& phase : args.phases) {
    auto it = std::find_if(kernel.shapes.begin(), kernel.shapes.end(),
                           [&](const Shape& s) { return s.phase == phase && s.runs_on(backend); });
    if (it == kernel.shapes.end())
      return Error::bad_input(kernel.name + " has no \"" + phase + "\" shape that runs on " +
                              backend);
    if (std::find(shapes.begin(), shapes.end(), it->name) == shapes.end())
      shapes.push_back(it->name);
  }
  return shapes;
}

int run(const ProfileArgs& args) {
  auto manifest = load_manifest(args.repo);
  if (!manifest.ok()) return fail(manifest.error());
  if (args.all == !args.kernel.empty())
    return fail(Error::bad_input("name one KERNEL, or --all (not both)"));
  std::vector<const Kernel*> kernels;
  if (args.all) {
    for (const Kernel& k : manifest->kernels) kernels.push_back(&k);
  } else {
    const Kernel* kernel = manifest->kernel(args.kernel);
    if (!kernel)
      return fail(
          Error::bad_input("no kernel '" + args.kernel + "' in " + manifest->path.string()));
    kernels.push_back(kernel);
  }

  nlohmann::json report = {{"backend", args.backend},
                           {"manifest", manifest->path.string()},
                           {"profiles", nlohmann::json::array()}};
  if (!args.all) report["kernel"] = args.kernel;
  std::vector<profile_model::ProfileData> all;
  for (const Kernel* kernel : kernels) {
    std::string backend_name = args.backend;
    if (backend_name == "auto") {
      backend_name = kernel->implementation("cuda") ? default_backend_name() : "host";
      progress("backend: " + backend_name);
    }
    if (!kernel->implementation(backend_name)) {
      if (args.all) continue;  // --all: the kernels this backend can run
      return fail(
          Error::bad_input(kernel->name + " has no \"" + backend_name + "\" implementation"));
    }
    auto backend = make_backend(backend_name);
    if (!backend.ok()) return fail(backend.error());
    if (Status s = (*backend)->available(); !s.ok()) return fail(s.error());
    auto shapes = pick_shapes(*kernel, args, backend_name);
    if (!shapes.ok()) return fail(shapes.error());

    profile::KernelProfileRequest request;
    request.manifest = &*manifest;
    request.kernel = kernel;
    request.backend = backend->get();
    request.shapes = *shapes;
    request.gpu = args.gpu;
    request.seed = args.seed;
    request.options.counters = !args.no_counters;
    auto profiles = profile::profile_kernel(request);
    if (!profiles.ok()) return fail(profiles.error());
    if (profiles->empty() && !args.all)
      return fail(Error::bad_input("no shape of " + kernel->name + " runs on " + backend_name));
    for (profile_model::ProfileData& p : *profiles) {
      // What the hot-region sampler saw, so an empty list can be diagnosed.
      if (!p.sampler.empty()) progress(p.kernel + " / " + p.shape + ": " + p.sampler);
      if (!args.table) {
        std::fputs((all.empty() ? "" : "\n"), stdout);
        std::fputs(render_summary(p).c_str(), stdout);
      }
      nlohmann::json j = summary_json(p);
      j["summary"] = render_summary(p);
      report["profiles"].push_back(j);
      all.push_back(std::move(p));
    }
  }
  if (args.table) std::fputs(render_profile_table(all).c_str(), stdout);
  if (!args.json.empty())
    if (Status s = write_file_atomic(args.json, report.dump(2) + "\n"); !s.ok())
      return fail(s.error());
  return 0;
}

CommandRegistration registration_profile(
    "profile", "Profile a kernel per shape: bottleneck, counters, roofline", [](CLI::App& app) {
      auto args = std::make_shared<ProfileArgs>();
      app.add_option("kernel", args->kernel, "Kernel name in the manifest");
      app.add_flag("--all", args->all, "Every kernel the backend can run");
      app.add_option("--shape", args->shapes, "Only these shapes (repeat, or comma-separated)")
          ->delimiter(',');
      app.add_option("--phases", args->phases,
                     "The first shape of each of these phases, e.g. decode,prefill")
          ->delimiter(',');
      app.add_flag("--table", args->table,
                   "Print one compact Markdown table instead of the summaries");
      app.add_option("--repo", args->repo, "kgate.json, or a folder holding one")
          ->capture_default_str();
      app.add_option("--backend", args->backend, "host, cuda, or auto")
          ->check(CLI::IsMember({"auto", "host", "cuda"}))
          ->capture_default_str();
      app.add_option("--json", args->json, "Also write the profiles as JSON to this file");
      app.add_option("--gpu", args->gpu, "GPU index (after CUDA_VISIBLE_DEVICES)")
          ->capture_default_str();
      app.add_option("--seed", args->seed, "Input seed")->capture_default_str();
      app.add_flag("--no-counters", args->no_counters,
                   "Skip CUPTI counters (timing, occupancy and roofline only)");
      return [args] { return run(*args); };
    });

}  // namespace
}  // namespace kgate::cli
