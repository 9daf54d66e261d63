// The gate's false alarms and detection on recorded timings of real kernels.
//
//   bench_gate_recorded record MANIFEST KERNEL/SHAPE... [--backend NAME] [--seconds S]
//                       [--gates N] [--save DIR] [--markdown FILE] [--no-real-gate]
//   bench_gate_recorded replay RECORDING.json... [--gates N] [--markdown FILE]
//
// record: compiles each kernel once, runs one real gate per shape (child
// process, device context, check and A/A timing to the policy's budget: what
// a gate costs end to end), then opens ONE device in this process and, per
// shape, records S seconds of interleaved A/A rounds (the same program loaded
// twice, timed by the harness exactly as a gate times head and base).
// replay (also the second half of record): cuts each recording into
// consecutive disjoint chunks, one per gate run, and replays the gate's real
// decision code on them (gate/recorded_replay.h): A/A, and head's samples
// scaled by 1.02, 1.05 and 1.10 (planted slowdowns), beside the two simple
// rules. Results are Markdown on stdout (and --markdown FILE); progress goes
// to stderr. The replay needs no GPU: recordings saved with --save replay
// anywhere.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "core/file_util.h"
#include "core/log.h"
#include "core/manifest_loader.h"
#include "gate/ab_gate.h"
#include "gate/recorded_replay.h"
#include "runner/backend.h"
#include "runner/gpu_lock.h"
#include "runner/harness.h"
#include "runner/reference.h"

using namespace kgate;

namespace {

struct Args {
  std::string mode;
  std::vector<std::string> positional;
  std::string backend, save_dir, markdown;
  double seconds = 40;
  int gates = 100;
  bool real_gate = true;
};

void note(const std::string& line) {
  std::fprintf(stderr, "bench_gate_recorded: %s\n", line.c_str());
  std::fflush(stderr);
}

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::optional<Args> parse(int argc, char** argv) {
  if (argc < 3) return std::nullopt;
  Args a;
  a.mode = argv[1];
  if (a.mode != "record" && a.mode != "replay") return std::nullopt;
  for (int i = 2; i < argc; ++i) {
    std::string s = argv[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= argc) return std::nullopt;
      return std::string(argv[++i]);
    };
    std::optional<std::string> v;
    if (s == "--backend" && (v = value())) {
      a.backend = *v;
    } else if (s == "--seconds" && (v = value())) {
      a.seconds = std::atof(v->c_str());
    } else if (s == "--gates" && (v = value())) {
      a.gates = std::atoi(v->c_str());
    } else if (s == "--save" && (v = value())) {
      a.save_dir = *v;
    } else if (s == "--markdown" && (v = value())) {
      a.markdown = *v;
    } else if (s == "--no-real-gate") {
      a.real_gate = false;
    } else if (s.rfind("--", 0) == 0) {
      return std::nullopt;
    } else {
      a.positional.push_back(s);
    }
  }
  if (a.positional.empty() || (a.mode == "record" && a.positional.size() < 2)) return std::nullopt;
  if (a.seconds <= 0 || a.gates <= 0) return std::nullopt;
  return a;
}

struct Target {
  const Kernel* kernel = nullptr;
  const Shape* shape = nullptr;
  Program program, reference;
  std::string real_gate;  // one real gate's wall time and verdict, for the report
};

std::string date_utc() {
  std::time_t now = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  return buf;
}

int replay_and_report(const std::vector<RecordedRounds>& recordings,
                      const std::vector<std::string>& notes, const Args& args,
                      const GatePolicy& policy, const std::string& header) {
  std::string md = header;
  ReplayOptions options;
  options.policy = policy;
  options.gates = args.gates;
  for (size_t i = 0; i < recordings.size(); ++i) {
    note("replaying " + recordings[i].kernel + " / " + recordings[i].shape);
    ReplayResult result = replay_gates(recordings[i], options, {0, 0.02, 0.05, 0.10});
    md += replay_markdown(recordings[i], options, result);
    if (i < notes.size() && !notes[i].empty()) md += notes[i] + "\n\n";
  }
  std::fputs(md.c_str(), stdout);
  std::fflush(stdout);
  if (!args.markdown.empty()) {
    if (auto s = write_file_atomic(args.markdown, md); !s.ok()) {
      std::fprintf(stderr, "%s\n", s.error().message.c_str());
      return 3;
    }
  }
  return 0;
}

int replay_main(const Args& args) {
  std::vector<RecordedRounds> recordings;
  for (const std::string& path : args.positional) {
    auto r = load_rounds(path);
    if (!r.ok()) return std::fprintf(stderr, "%s\n", r.error().message.c_str()), 2;
    recordings.push_back(std::move(r.value()));
  }
  GatePolicy policy;  // the defaults: recordings carry no manifest
  char header[256];
  std::snprintf(header, sizeof header,
                "Replayed from saved recordings (`bench_gate_recorded replay`) with the default "
                "gate policy: %.1f%% confidence, budget %.2f s per shape.\n\n",
                policy.confidence * 100, policy.budget_s);
  return replay_and_report(recordings, {}, args, policy, header);
}

int record_main(const Args& args) {
  auto start_all = std::chrono::steady_clock::now();
  auto manifest = load_manifest(args.positional[0]);
  if (!manifest.ok()) return std::fprintf(stderr, "%s\n", manifest.error().message.c_str()), 2;
  auto backend_or = make_backend(args.backend.empty() ? default_backend_name() : args.backend);
  if (!backend_or.ok()) return std::fprintf(stderr, "%s\n", backend_or.error().message.c_str()), 2;
  Backend& backend = **backend_or;
  const GatePolicy policy = manifest->gate;

  // Everything that forks (compilers, the real gates' children) happens
  // before this process opens its device: a context does not survive fork.
  std::vector<Target> targets;
  for (size_t i = 1; i < args.positional.size(); ++i) {
    const std::string& spec = args.positional[i];
    size_t slash = spec.find('/');
    if (slash == std::string::npos)
      return std::fprintf(stderr, "'%s': expected KERNEL/SHAPE\n", spec.c_str()), 2;
    Target t;
    t.kernel = manifest->kernel(spec.substr(0, slash));
    if (!t.kernel) return std::fprintf(stderr, "no kernel in '%s'\n", spec.c_str()), 2;
    t.shape = t.kernel->shape(spec.substr(slash + 1));
    if (!t.shape) return std::fprintf(stderr, "no shape in '%s'\n", spec.c_str()), 2;
    const Implementation* impl = t.kernel->implementation(backend.name());
    if (!impl || !t.shape->runs_on(backend.name()))
      return std::fprintf(stderr, "'%s' does not run on the %s backend\n", spec.c_str(),
                          backend.name().c_str()),
             2;
    note("compiling " + t.kernel->name);
    CompileRequest request{t.kernel, impl, manifest->root};
    auto compiled = backend.compile(request);
    if (!compiled.ok() || !compiled->ok)
      return std::fprintf(stderr, "%s does not compile\n", t.kernel->name.c_str()), 3;
    t.program = compiled->program;
    auto reference = build_reference(*t.kernel, manifest->root);
    if (!reference.ok() || !reference->ok)
      return std::fprintf(stderr, "the reference of %s does not build\n", t.kernel->name.c_str()),
             3;
    t.reference = reference->program;
    targets.push_back(std::move(t));
  }

  if (args.real_gate) {
    for (Target& t : targets) {
      note("one real A/A gate of " + t.kernel->name + " / " + t.shape->name);
      GateSources sources;
      sources.head.program = t.program;
      sources.base = sources.head;
      GateOptions options;
      options.shape = t.shape->name;
      options.seed = 77;
      auto started = std::chrono::steady_clock::now();
      auto gated = gate_kernel(*manifest, *t.kernel, backend, sources, options);
      double wall = since(started);
      if (!gated.ok() || gated->shapes.empty())
        return std::fprintf(stderr, "the real gate failed: %s\n",
                            gated.ok() ? "no shape" : gated.error().message.c_str()),
               3;
      const ShapeGate& s = gated->shapes[0];
      char buf[256];
      std::snprintf(buf, sizeof buf,
                    "One real gate of this shape (`gate_kernel`: child process, device context, "
                    "checks, A/A timing): %.2f s wall, %d rounds, verdict %s.",
                    wall, s.rounds, std::string(to_string(s.verdict)).c_str());
      t.real_gate = buf;
    }
  }

  std::optional<GpuLock> lock;
  if (backend.needs_device_lock()) {
    auto name = backend.device_lock_name(0);
    if (!name.ok()) return std::fprintf(stderr, "%s\n", name.error().message.c_str()), 3;
    auto held = GpuLock::acquire(*name);
    if (!held.ok()) return std::fprintf(stderr, "%s\n", held.error().message.c_str()), 3;
    lock.emplace(std::move(held.value()));
  }
  note("opening the device (one context for every recording)");
  auto device = backend.open_device(0);
  if (!device.ok()) return std::fprintf(stderr, "%s\n", device.error().message.c_str()), 3;
  DeviceInfo info = (*device)->info();

  std::vector<RecordedRounds> recordings;
  std::vector<std::string> notes;
  for (const Target& t : targets) {
    MeasureRequest m;
    m.kernel = t.kernel;
    m.impl = t.kernel->implementation(backend.name());
    m.shape = t.shape;
    m.backend = &backend;
    m.device = device->get();
    m.head = &t.program;
    m.reference = &t.reference;
    m.seed = 4242;
    // What a gate does before its timing loop: inputs, reference, checks.
    m.time = false;
    auto started = std::chrono::steady_clock::now();
    ShapeMeasurement check = measure_in_process(m);
    double check_seconds = since(started);
    if (check.status != MeasureStatus::kPass)
      return std::fprintf(stderr, "%s / %s fails its check: %s\n", t.kernel->name.c_str(),
                          t.shape->name.c_str(), check.reason.c_str()),
             3;
    char buf[160];
    std::snprintf(buf, sizeof buf, "recording %s / %s for %.0f s of A/A rounds",
                  t.kernel->name.c_str(), t.shape->name.c_str(), args.seconds);
    note(buf);
    m.base = &t.program;  // loaded a second time: head and base are separate modules
    m.time = true;
    m.warmup = t.kernel->timing.warmup;
    m.min_samples = 20;
    m.max_samples = 100000000;
    m.budget_s = args.seconds;  // the loop stops at the first round past this
    ShapeMeasurement measured = measure_in_process(m);
    if (measured.status != MeasureStatus::kPass)
      return std::fprintf(stderr, "recording failed: %s\n", measured.reason.c_str()), 3;
    RecordedRounds r;
    r.kernel = t.kernel->name;
    r.shape = t.shape->name;
    r.phase = t.shape->phase;
    r.device = info.name;
    r.head = measured.head_seconds;
    r.base = measured.base_seconds;
    r.head.resize(r.rounds());
    r.base.resize(r.rounds());
    r.loop_seconds = args.seconds;
    r.check_seconds = check_seconds;
    std::snprintf(buf, sizeof buf, "  %zu rounds (%.1f us per round), median %.2f us, %d throttled",
                  r.rounds(), r.seconds_per_round() * 1e6, r.median_s() * 1e6,
                  measured.throttled_samples);
    note(buf);
    if (!args.save_dir.empty()) {
      auto path = std::filesystem::path(args.save_dir) / (r.kernel + "." + r.shape + ".json");
      if (auto s = save_rounds(path, r); !s.ok())
        return std::fprintf(stderr, "%s\n", s.error().message.c_str()), 3;
    }
    recordings.push_back(std::move(r));
    notes.push_back(t.real_gate);
  }
  device->reset();
  lock.reset();

  char head[1024];
  std::snprintf(
      head, sizeof head,
      "**Machine**: %s (%s, %s), driver %s. **Date**: %s. **Backend**: %s. Recorded in one "
      "process with one device context, %.0f s of interleaved A/A rounds per kernel-shape; "
      "replayed with the manifest's gate policy (%.0f%% confidence, resolution %.0f%%, fail above "
      "+%.0f%%, budget %.2f s per shape), %d gate runs wanted per row. Planted slowdowns multiply "
      "head's recorded samples by 1.02 / 1.05 / 1.10. Compiling, real gates and recording: %.0f s "
      "wall.\n\n",
      info.name.c_str(), info.arch.c_str(), info.runtime.c_str(), info.driver.c_str(),
      date_utc().c_str(), backend.name().c_str(), args.seconds, policy.confidence * 100,
      policy.resolution * 100, policy.max_regression * 100, policy.budget_s, args.gates,
      since(start_all));
  std::string header = head;
  return replay_and_report(recordings, notes, args, policy, header);
}

}  // namespace

int main(int argc, char** argv) {
  auto args = parse(argc, argv);
  if (!args) {
    std::fprintf(stderr,
                 "usage: %s record MANIFEST KERNEL/SHAPE... [--backend NAME] [--seconds S] "
                 "[--gates N] [--save DIR] [--markdown FILE] [--no-real-gate]\n"
                 "       %s replay RECORDING.json... [--gates N] [--markdown FILE]\n",
                 argv[0], argv[0]);
    return 2;
  }
  set_quiet(true);
  return args->mode == "record" ? record_main(*args) : replay_main(*args);
}
