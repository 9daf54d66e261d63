// Times the host side of a correctness check, the part that needs no GPU:
// drawing the inputs (runner/inputs.cpp) and running the double-precision
// host reference (runner/reference.cpp) for one kernel-shape, as the harness
// does for one check with time=false (two input sets: the check and the
// check after timing). Usage:
//   bench_host_inputs MANIFEST KERNEL SHAPE [repeats]
// e.g. bench_host_inputs examples/llm-ops gemv lm-head-b1
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>

#include "core/log.h"
#include "core/manifest_loader.h"
#include "core/parallel.h"
#include "runner/host/host_library.h"
#include "runner/inputs.h"
#include "runner/launch_plan.h"
#include "runner/reference.h"

using namespace kgate;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// CPU seconds of all threads of this process: on a shared machine wall time
// depends on the other load, CPU time much less.
double cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s MANIFEST KERNEL SHAPE [repeats]\n", argv[0]);
    return 2;
  }
  int repeats = argc > 4 ? std::atoi(argv[4]) : 1;
  set_quiet(true);
  auto manifest = load_manifest(argv[1]);
  if (!manifest.ok()) return std::fprintf(stderr, "%s\n", manifest.error().message.c_str()), 2;
  const Kernel* kernel = manifest->kernel(argv[2]);
  if (!kernel) return std::fprintf(stderr, "no kernel %s\n", argv[2]), 2;
  const Shape* shape = kernel->shape(argv[3]);
  if (!shape) return std::fprintf(stderr, "no shape %s\n", argv[3]), 2;
  auto plan = plan_launch(*kernel, nullptr, *shape, {});
  if (!plan.ok()) return std::fprintf(stderr, "%s\n", plan.error().message.c_str()), 2;
  auto built = build_reference(*kernel, manifest->root);
  if (!built.ok() || !built->ok) return std::fprintf(stderr, "the reference does not build\n"), 3;
  auto reference = HostLibrary::open(built->program.artifact);
  if (!reference.ok()) return std::fprintf(stderr, "%s\n", reference.error().message.c_str()), 3;

  size_t input_bytes = 0;
  for (const ArgPlan& a : plan->args)
    if (a.arg->is_buffer && a.arg->role != ArgRole::kOutput) input_bytes += a.bytes;
  std::printf("%s / %s: %.1f MB of inputs, %d host threads\n", argv[2], argv[3], input_bytes / 1e6,
              host_threads());
  for (int r = 0; r < repeats; ++r) {
    auto start = std::chrono::steady_clock::now();
    double cpu = cpu_seconds();
    HostData inputs = make_inputs(*plan, 1000 + r);
    double t_inputs = seconds_since(start), c_inputs = cpu_seconds() - cpu;
    start = std::chrono::steady_clock::now();
    cpu = cpu_seconds();
    auto expected = run_reference(**reference, *plan, inputs);
    double t_reference = seconds_since(start), c_reference = cpu_seconds() - cpu;
    // What one check costs the harness: two input sets and their references.
    start = std::chrono::steady_clock::now();
    cpu = cpu_seconds();
    auto sets = prepare_reference_sets(**reference, *plan, {2000u + r, 3000u + r});
    double t_check = seconds_since(start), c_check = cpu_seconds() - cpu;
    std::printf(
        "  inputs %.3f s wall (%.3f s cpu)  reference %.3f s wall (%.3f s cpu)  "
        "check's host work, 2 sets: %.3f s wall (%.3f s cpu)\n",
        t_inputs, c_inputs, t_reference, c_reference, t_check, c_check);
    if (sets.size() != 2 || expected.empty()) return 3;
  }
  return 0;
}
