// kgate profile KERNEL: compile one kernel and profile each shape, printing
// the fixed-template summary (what an agent observes and a pull request
// shows); --json writes the numbers beside it.
#include <cstdio>

#include "cli/command.h"
#include "core/file_util.h"
#include "core/log.h"
#include "core/manifest_loader.h"
#include "runner/profile/kernel_profiler.h"

namespace kgate::cli {
namespace {

struct ProfileArgs {
  std::string kernel;
  std::string shape;
  std::string repo = ".";
  std::string backend = "auto";
  std::string json;
  int gpu = 0;
  uint64_t seed = 1;
  bool no_counters = false;
};

int run(const ProfileArgs& args) {
  auto manifest = load_manifest(args.repo);
  if (!manifest.ok()) return fail(manifest.error());
  const Kernel* kernel = manifest->kernel(args.kernel);
  if (!kernel)
    return fail(Error::bad_input("no kernel '" + args.kernel + "' in " + manifest->path.string()));

  std::string backend_name = args.backend;
  if (backend_name == "auto") {
    backend_name = kernel->implementation("cuda") ? default_backend_name() : "host";
    progress("backend: " + backend_name);
  }
  auto backend = make_backend(backend_name);
  if (!backend.ok()) return fail(backend.error());
  if (Status s = (*backend)->available(); !s.ok()) return fail(s.error());
  if (!kernel->implementation(backend_name))
    return fail(Error::bad_input(kernel->name + " has no \"" + backend_name + "\" implementation"));

  profile::KernelProfileRequest request;
  request.manifest = &*manifest;
  request.kernel = kernel;
  request.backend = backend->get();
  request.shape = args.shape;
  request.gpu = args.gpu;
  request.seed = args.seed;
  request.options.counters = !args.no_counters;
  auto profiles = profile::profile_kernel(request);
  if (!profiles.ok()) return fail(profiles.error());
  if (profiles->empty())
    return fail(Error::bad_input("no shape of " + kernel->name + " runs on " + backend_name));

  nlohmann::json report = {{"kernel", kernel->name},
                           {"backend", backend_name},
                           {"manifest", manifest->path.string()},
                           {"profiles", nlohmann::json::array()}};
  for (size_t i = 0; i < profiles->size(); ++i) {
    const ProfileData& p = (*profiles)[i];
    std::fputs((i ? "\n" : ""), stdout);
    std::fputs(render_summary(p).c_str(), stdout);
    nlohmann::json j = summary_json(p);
    j["summary"] = render_summary(p);
    report["profiles"].push_back(j);
  }
  if (!args.json.empty())
    if (Status s = write_file_atomic(args.json, report.dump(2) + "\n"); !s.ok())
      return fail(s.error());
  return 0;
}

CommandRegistration registration(
    "profile", "Profile a kernel per shape: bottleneck, counters, roofline", [](CLI::App& app) {
      auto args = std::make_shared<ProfileArgs>();
      app.add_option("kernel", args->kernel, "Kernel name in the manifest")->required();
      app.add_option("--shape", args->shape, "Only this shape");
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
