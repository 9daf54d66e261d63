// kgate calibrate [PATH]: time each kernel against itself (A/A) many times
// and report, per shape, the false-alarm rate and the noise floor on this
// machine, so the gate's thresholds are measured rather than assumed.
#include <cstdio>

#include "cli/command.h"
#include "core/file_util.h"
#include "core/log.h"
#include "core/manifest_loader.h"
#include "core/text_table.h"
#include "gate/calibration.h"

namespace kgate::cli {
namespace {

struct CalibrateArgs {
  std::string path = ".";
  std::string kernel, shape;
  std::string backend = "auto";
  std::string json;
  int runs = 20;
  double budget_s = 0;
  uint64_t seed = 0;
  int gpu = 0;
};

std::string pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f%%", v * 100);
  return buf;
}

int run(const CalibrateArgs& args) {
  auto manifest = load_manifest(args.path);
  if (!manifest.ok()) return fail(manifest.error());
  if (!args.kernel.empty() && !manifest->kernel(args.kernel))
    return fail(Error::bad_input("no kernel '" + args.kernel + "' in " + manifest->path.string()));
  if (args.runs < 1) return fail(Error::bad_input("--runs must be at least 1"));
  std::string backend_name = args.backend == "auto" ? default_backend_name() : args.backend;
  auto backend = make_backend(backend_name);
  if (!backend.ok()) return fail(backend.error());
  if (Status s = (*backend)->available(); !s.ok()) return fail(s.error());

  GateOptions options;
  options.shape = args.shape;
  options.seed = args.seed;
  options.gpu = args.gpu;
  GatePolicy policy = manifest->gate;
  if (args.budget_s > 0) policy.budget_s = args.budget_s;
  options.policy = policy;

  TextTable table({"kernel", "shape", "phase", "runs", "false alarms", "rate", "noise floor (P95)",
                   "median half-width", "median rounds", "s per gate"});
  nlohmann::json report = {{"backend", backend_name}, {"kernels", nlohmann::json::array()}};
  int total_runs = 0, total_alarms = 0;
  for (const Kernel& kernel : manifest->kernels) {
    if (!args.kernel.empty() && kernel.name != args.kernel) continue;
    if (!kernel.implementation(backend_name)) continue;
    if (!args.shape.empty() && !kernel.shape(args.shape)) continue;
    auto calibration = calibrate_kernel(*manifest, kernel, **backend, args.runs, options);
    if (!calibration.ok()) return fail(calibration.error().with_context(kernel.name));
    for (const ShapeCalibration& s : calibration->shapes) {
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%.2f", s.mean_seconds);
      table.add({kernel.name, s.shape, s.phase, std::to_string(s.runs),
                 std::to_string(s.false_alarms), pct(s.false_alarm_rate()), pct(s.noise_floor),
                 pct(s.median_half_width), std::to_string(static_cast<int>(s.median_rounds)),
                 seconds});
      total_runs += s.runs;
      total_alarms += s.false_alarms;
    }
    report["kernels"].push_back(calibration->to_json());
  }
  std::fputs(table.render().c_str(), stdout);
  std::printf("A/A false alarms: %d of %d kernel-shape gates (%.2f%%) at %.1f%% confidence\n",
              total_alarms, total_runs, total_runs ? 100.0 * total_alarms / total_runs : 0.0,
              policy.confidence * 100);
  if (!args.json.empty())
    if (Status s = write_file_atomic(args.json, report.dump(2) + "\n"); !s.ok())
      return fail(s.error());
  return 0;
}

CommandRegistration registration_calibrate(
    "calibrate",
    "Gate kernels against themselves (A/A): false-alarm rate and noise floor per shape",
    [](CLI::App& app) {
      auto args = std::make_shared<CalibrateArgs>();
      app.add_option("path", args->path, "kgate.json, or a folder holding one")
          ->capture_default_str();
      app.add_option("--kernel", args->kernel, "Only this kernel");
      app.add_option("--shape", args->shape, "Only this shape");
      app.add_option("--runs", args->runs, "A/A gates per kernel-shape")->capture_default_str();
      app.add_option("--backend", args->backend, "host, cuda, or auto")
          ->check(CLI::IsMember({"auto", "host", "cuda"}))
          ->capture_default_str();
      app.add_option("--budget", args->budget_s,
                     "Timing budget per kernel-shape in seconds (default: the manifest's)");
      app.add_option("--json", args->json,
                     "Write per-run estimates and the summary as JSON to this file");
      app.add_option("--seed", args->seed, "Input seed of the first run");
      app.add_option("--gpu", args->gpu, "GPU index")->capture_default_str();
      return [args] { return run(*args); };
    });

}  // namespace
}  // namespace kgate::cli
