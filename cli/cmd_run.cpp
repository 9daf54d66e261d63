// kgate run [PATH]: compile, check and time the kernels of a manifest and
// print a per-shape table.
#include <cstdio>
#include <fstream>

#include "cli/command.h"
#include "core/file_util.h"
#include "core/log.h"
#include "core/manifest_loader.h"
#include "core/number_format.h"
#include "core/text_table.h"
#include "runner/kernel_run.h"

namespace kgate::cli {
namespace {

struct RunArgs {
  std::string path = ".";
  std::string kernel;
  std::string shape;
  std::string backend = "auto";
  std::string json;
  int gpu = 0;
  uint64_t seed = 0;
};

std::string check_cell(const ShapeMeasurement& m) {
  if (m.status == MeasureStatus::kPass) return "pass";
  return std::string(to_string(m.status)) + ": " + m.reason;
}

int run(const RunArgs& args) {
  auto manifest = load_manifest(args.path);
  if (!manifest.ok()) return fail(manifest.error());
  if (!args.kernel.empty() && !manifest->kernel(args.kernel))
    return fail(Error::bad_input("no kernel '" + args.kernel + "' in " + manifest->path.string()));

  std::string backend_name = args.backend;
  if (backend_name == "auto") {
    backend_name = default_backend_name();
    progress("backend: " + backend_name + (backend_name == "host" ? " (no GPU found)" : ""));
  }
  auto backend = make_backend(backend_name);
  if (!backend.ok()) return fail(backend.error());
  if (Status s = (*backend)->available(); !s.ok()) return fail(s.error());

  TextTable table({"kernel", "shape", "phase", "median", "max abs err", "max rel err", "check"});
  nlohmann::json report = {{"backend", backend_name},
                           {"manifest", manifest->path.string()},
                           {"kernels", nlohmann::json::array()}};
  bool all_passed = true;
  for (const Kernel& kernel : manifest->kernels) {
    if (!args.kernel.empty() && kernel.name != args.kernel) continue;
    if (!kernel.implementation(backend_name)) {
      if (!args.kernel.empty())
        return fail(
            Error::bad_input(kernel.name + " has no \"" + backend_name + "\" implementation"));
      progress("skipping " + kernel.name + ": no " + backend_name + " implementation");
      continue;
    }
    KernelRunOptions options;
    options.shape = args.shape;
    options.gpu = args.gpu;
    options.seed = args.seed;
    auto result = run_kernel(*manifest, kernel, **backend, options);
    if (!result.ok()) {
      if (result.error().kind == ExitCode::kInfrastructure) return fail(result.error());
      // A broken kernel entry stops that kernel, not the run.
      warn(result.error().message);
      table.add({kernel.name, "-", "-", "-", "-", "-", "error: " + result.error().message});
      report["kernels"].push_back({{"kernel", kernel.name}, {"error", result.error().message}});
      all_passed = false;
      continue;
    }
    report["kernels"].push_back(result->to_json());
    if (!result->compiled) {
      table.add({kernel.name, "-", "-", "-", "-", "-", "compile error"});
      std::fprintf(stderr, "%s does not compile:\n%s", kernel.name.c_str(),
                   result->compile_error.c_str());
      all_passed = false;
      continue;
    }
    for (const ShapeMeasurement& m : result->shapes) {
      const Shape* shape = kernel.shape(m.shape);
      bool empty = shape && shape->allow_empty;
      table.add({kernel.name, m.shape, m.phase,
                 empty ? "not timed (empty)" : format_seconds(m.head_median()),
                 format_error(m.check.max_abs_error), format_error(m.check.max_rel_error),
                 check_cell(m)});
      all_passed &= m.status == MeasureStatus::kPass;
      if (m.status == MeasureStatus::kError) all_passed = false;
    }
  }
  std::fputs(table.render().c_str(), stdout);
  if (!args.json.empty()) {
    if (Status s = write_file_atomic(args.json, report.dump(2) + "\n"); !s.ok())
      return fail(s.error());
  }
  return all_passed ? 0 : to_int(ExitCode::kCheckFailed);
}

CommandRegistration registration_run(
    "run", "Compile, check and time the kernels of a manifest", [](CLI::App& app) {
      auto args = std::make_shared<RunArgs>();
      app.add_option("path", args->path, "kgate.json, or a folder holding one")
          ->capture_default_str();
      app.add_option("--kernel", args->kernel, "Only this kernel");
      app.add_option("--shape", args->shape, "Only this shape");
      app.add_option("--backend", args->backend, "host, cuda, or auto (cuda when a GPU is found)")
          ->check(CLI::IsMember({"auto", "host", "cuda"}))
          ->capture_default_str();
      app.add_option("--json", args->json, "Also write the full results as JSON to this file");
      app.add_option("--gpu", args->gpu, "GPU index (after CUDA_VISIBLE_DEVICES)")
          ->capture_default_str();
      app.add_option("--seed", args->seed,
                     "Input seed (default: drawn from the clock, recorded in --json)");
      return [args] { return run(*args); };
    });

}  // namespace
}  // namespace kgate::cli
