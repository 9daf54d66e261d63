// kgate extract [-- COMMAND...]: runs the workload (the manifest's, or
// COMMAND) with the launch tracer injected, and turns the trace into the
// task list: per phase, each kernel's share of GPU time, launch count and
// typical grid, matched to manifest kernels. The list is stored for
// `kgate sweep` and `kgate optimize` (<state>/workload/tasks.json).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "agent/optimize_job.h"
#include "agent/workload_priority.h"
#include "cli/command.h"
#include "core/file_util.h"
#include "core/log.h"
#include "core/manifest_loader.h"
#include "core/subprocess.h"
#include "runner/task_list.h"

namespace kgate::cli {
namespace {

struct ExtractArgs {
  std::string repo = ".";
  std::string json;
  std::string trace;       // where the raw trace goes
  std::string from_trace;  // build the list from this trace, run nothing
  std::string state_dir;
  bool no_build = false;
  double timeout_s = 0;  // 0: the manifest's workload timeout
  std::vector<std::string> command;
};

// libkgate_trace.so: $KGATE_TRACE_LIBRARY, else next to this executable.
Result<std::filesystem::path> tracer_library() {
  if (const char* v = std::getenv("KGATE_TRACE_LIBRARY"); v && *v) return std::filesystem::path(v);
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  auto lib = self.parent_path() / "libkgate_trace.so";
  if (ec || !std::filesystem::exists(lib))
    return Error::infrastructure(
        "the launch tracer libkgate_trace.so is not next to the kgate executable (" + lib.string() +
        "): build the kgate_trace target or set KGATE_TRACE_LIBRARY");
  return lib;
}

Status run_step(const std::vector<std::string>& argv, const CommandOptions& options,
                const std::string& what) {
  progress(what);
  auto outcome = run_command(argv, options);
  if (!outcome.ok()) return outcome.error();
  if (!outcome->succeeded()) {
    std::string tail =
        outcome->err.size() > 2000 ? outcome->err.substr(outcome->err.size() - 2000) : outcome->err;
    return Error::check_failed(what + ": " + outcome->describe(options.timeout_s) + "\n" + tail);
  }
  return {};
}

Result<LaunchTrace> trace_workload(const Manifest& manifest, const ExtractArgs& args,
                                   const std::filesystem::path& trace_file) {
  auto lib = tracer_library();
  if (!lib.ok()) return lib.error();
  auto parsed = workload_spec(manifest);
  const WorkloadSpec* spec = parsed ? &*parsed : nullptr;
  if (args.command.empty() && !spec)
    return Error::bad_input(manifest.path.string() +
                            " has no \"workload\" section: give the command after `--`");
  CommandOptions options;
  options.timeout_s = args.timeout_s > 0 ? args.timeout_s : spec ? spec->timeout_s : 600;
  std::vector<std::string> argv = args.command;
  if (argv.empty()) {
    options.cwd = manifest.root.string();
    if (!spec->build.empty() && !args.no_build)
      KGATE_RETURN_IF_ERROR(
          run_step({"sh", "-c", spec->build}, options, "building the workload: " + spec->build));
    auto output = std::filesystem::absolute(manifest.root / spec->output);
    std::filesystem::create_directories(output.parent_path());
    argv = {"sh", "-c", expand_output(spec->command, output.string())};
  }
  std::error_code ec;
  std::filesystem::create_directories(trace_file.parent_path(), ec);
  std::filesystem::remove(trace_file, ec);
  options.env = {{"CUDA_INJECTION64_PATH", lib->string()},
                 {"NVTX_INJECTION64_PATH", lib->string()},
                 {"KGATE_TRACE_FILE", std::filesystem::absolute(trace_file).string()}};
  KGATE_RETURN_IF_ERROR(run_step(argv, options, "tracing: " + argv.back()));
  if (!std::filesystem::exists(trace_file))
    return Error::infrastructure(
        "the workload ran but wrote no trace to " + trace_file.string() +
        ": it launched no CUDA work, or exited without running its exit handlers (_exit, a "
        "signal)");
  return read_launch_trace(trace_file);
}

int run(const ExtractArgs& args) {
  auto manifest = load_manifest(args.repo);
  if (!manifest.ok()) return fail(manifest.error());
  std::filesystem::path state =
      args.state_dir.empty() ? default_state_dir(args.repo) : std::filesystem::path(args.state_dir);
  Result<LaunchTrace> trace = Error::bad_input("");
  if (!args.from_trace.empty()) {
    trace = read_launch_trace(args.from_trace);
  } else {
    std::filesystem::path trace_file =
        args.trace.empty() ? state / "workload" / "trace.json" : std::filesystem::path(args.trace);
    trace = trace_workload(*manifest, args, trace_file);
  }
  if (!trace.ok()) return fail(trace.error());
  if (trace->launches.empty())
    return fail(Error::check_failed("the trace holds no kernel launches"));
  TaskList tasks = build_task_list(*trace, *manifest);
  if (!tasks.nvtx)
    warn("the workload marked no NVTX ranges: every launch is \"" + std::string(kOutsidePhases) +
         "\" (mark prefill and decode with nvtxRangePushA/nvtxRangePop)");
  if (tasks.dropped_records > 0)
    warn(std::to_string(tasks.dropped_records) + " launch records were dropped: shares are low");
  bool matched = false;
  for (const TaskKernel& k : tasks.kernels) matched |= !k.kernel.empty();
  if (!matched) warn("no launched kernel matches a manifest kernel's entry name");
  std::fputs(render_task_list(tasks).c_str(), stdout);
  std::string text = tasks.to_json().dump(2) + "\n";
  std::error_code ec;
  std::filesystem::create_directories(task_list_path(state).parent_path(), ec);
  if (Status s = write_file_atomic(task_list_path(state), text); !s.ok()) return fail(s.error());
  progress("task list stored at " + task_list_path(state).string());
  if (!args.json.empty())
    if (Status s = write_file_atomic(args.json, text); !s.ok()) return fail(s.error());
  return 0;
}

CommandRegistration registration_extract(
    "extract",
    "Trace the workload's kernel launches per phase and store the task list (hottest first)",
    [](CLI::App& app) {
      auto args = std::make_shared<ExtractArgs>();
      app.add_option("--repo", args->repo, "Kernel repository (folder of kgate.json)");
      app.add_option("--json", args->json, "Also write the task list to this file");
      app.add_option("--trace", args->trace, "Where the raw launch trace goes");
      app.add_option("--from-trace", args->from_trace,
                     "Build the task list from a recorded trace; run nothing");
      app.add_option("--state-dir", args->state_dir, "State folder (default <repo>/.kgate)");
      app.add_flag("--no-build", args->no_build, "Do not run the workload's build command");
      app.add_option("--timeout", args->timeout_s, "Time limit of the traced run, in seconds");
      app.add_option("command", args->command,
                     "The workload command (after --); default: the manifest's workload")
          ->expected(-1);
      return [args] { return run(*args); };
    });

}  // namespace
}  // namespace kgate::cli
