// How close the host reference's cost estimate (runner/reference_cost.h) is
// to what the reference then takes: estimates SHAPE from the kernel's small
// shapes, then runs the reference on SHAPE once and times it. Usage:
//   bench_reference_cost MANIFEST KERNEL SHAPE
// e.g. bench_reference_cost examples/llm-ops gemv lm-head-b1
#include <time.h>

#include <chrono>
#include <cstdio>

#include "core/log.h"
#include "core/manifest_loader.h"
#include "runner/host/host_library.h"
#include "runner/inputs.h"
#include "runner/launch_plan.h"
#include "runner/reference.h"
#include "runner/reference_cost.h"

using namespace kgate;

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s MANIFEST KERNEL SHAPE\n", argv[0]);
    return 2;
  }
  set_quiet(true);
  auto manifest = load_manifest(argv[1]);
  if (!manifest.ok()) return std::fprintf(stderr, "%s\n", manifest.error().message.c_str()), 2;
  const Kernel* kernel = manifest->kernel(argv[2]);
  if (!kernel) return std::fprintf(stderr, "no kernel %s\n", argv[2]), 2;
  const Shape* shape = kernel->shape(argv[3]);
  if (!shape) return std::fprintf(stderr, "no shape %s\n", argv[3]), 2;
  auto built = build_reference(*kernel, manifest->root);
  if (!built.ok() || !built->ok) return std::fprintf(stderr, "the reference does not build\n"), 3;

  auto start = std::chrono::steady_clock::now();
  auto costs = estimate_reference_costs(*kernel, built->program, {shape->name}, 600);
  double t_estimate =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!costs.ok() || costs->size() != 1)
    return std::fprintf(stderr, "%s\n", costs.ok() ? "no estimate" : costs.error().message.c_str()),
           3;

  auto plan = plan_launch(*kernel, nullptr, *shape, {});
  if (!plan.ok()) return std::fprintf(stderr, "%s\n", plan.error().message.c_str()), 2;
  auto reference = HostLibrary::open(built->program.artifact);
  if (!reference.ok()) return std::fprintf(stderr, "%s\n", reference.error().message.c_str()), 3;
  HostData inputs = make_inputs(*plan, 1);
  start = std::chrono::steady_clock::now();
  timespec c0, c1;  // CPU time, as the estimate: on a shared machine wall time is others' too
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
  DoubleData expected = run_reference(**reference, *plan, inputs);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
  double t_reference =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double c_reference = (c1.tv_sec - c0.tv_sec) + (c1.tv_nsec - c0.tv_nsec) * 1e-9;
  const ReferenceCost& cost = costs->front();
  std::printf(
      "%s / %s: estimate %.3f s (%s; the estimate took %.3f s), measured %.3f s wall, %.3f s cpu, "
      "estimate / measured cpu %.2f\n",
      argv[2], argv[3], cost.seconds, cost.basis.c_str(), t_estimate, t_reference, c_reference,
      cost.seconds / c_reference);
  return expected.empty() ? 3 : 0;
}
