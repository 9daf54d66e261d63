// Where the host side of one kernel-shape check goes, step by step, without
// a GPU: what the harness does around the kernel's runs (runner/harness.cpp)
// for a check with the host reference as oracle, and what the faster oracles
// leave of it. Steps, for one shape:
//   inputs      two input sets drawn (the check, and the check after timing)
//   reference   the host reference on both, side by side (prepare_reference_sets)
//   compare     the three comparisons of a check: outputs against the
//               reference twice (check, check after timing), two runs bitwise
//   to double   the kernel's outputs in double (what the base as oracle, and
//               the reference kernel's in/out buffers, cost on the host)
//   store write / store read   one set's reference outputs to and from the
//               on-disk store (runner/reference_store.h), page cache warm
// The kernel's outputs are stood in for by the reference's, rounded to the
// output type. Usage:
//   bench_check_steps MANIFEST KERNEL SHAPE [repeats]
// e.g. bench_check_steps examples/llm-ops fused_add_rmsnorm prefill-8k
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "core/log.h"
#include "core/manifest_loader.h"
#include "core/parallel.h"
#include "runner/compare.h"
#include "runner/device_reference.h"
#include "runner/host/host_library.h"
#include "runner/inputs.h"
#include "runner/launch_plan.h"
#include "runner/reference.h"
#include "runner/reference_store.h"

using namespace kgate;

namespace {

// CPU seconds of all threads of this process: on a shared machine wall time
// depends on the other load, CPU time much less.
double cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

// Times a step: wall and CPU seconds.
struct Step {
  std::chrono::steady_clock::time_point wall = std::chrono::steady_clock::now();
  double cpu = cpu_seconds();
  std::pair<double, double> done() const {
    return {std::chrono::duration<double>(std::chrono::steady_clock::now() - wall).count(),
            cpu_seconds() - cpu};
  }
};

// The reference's outputs as a kernel of the output types would write them.
HostData as_kernel_outputs(const LaunchPlan& plan, const DoubleData& ref) {
  HostData out(plan.args.size());
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const ArgPlan& a = plan.args[i];
    if (!a.arg->is_buffer || a.arg->role == ArgRole::kInput) continue;
    out[i].resize(a.bytes);
    parallel_for(a.count, int64_t{1} << 18, [&](int64_t begin, int64_t end) {
      for (int64_t e = begin; e < end; ++e)
        store_from_double(a.arg->dtype, out[i].data(), e, ref[i][e]);
    });
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s MANIFEST KERNEL SHAPE [repeats]\n", argv[0]);
    return 2;
  }
  const int repeats = argc > 4 ? std::atoi(argv[4]) : 1;
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
  const char* scratch = std::getenv("TMPDIR");
  ReferenceStore store(std::filesystem::path(scratch && *scratch ? scratch : "/tmp") /
                           ("kgate-bench-store-" + std::to_string(getpid())),
                       size_t{64} << 30);

  size_t elements = 0;
  for (const ArgPlan& a : plan->args)
    if (a.arg->is_buffer) elements += a.count;
  std::printf("%s / %s: %.1fM buffer elements, %d host threads\n", argv[2], argv[3], elements / 1e6,
              host_threads());
  std::printf(
      "  seconds, wall / cpu: inputs (2 sets) | host reference (2 sets) | compare (3) | "
      "to double (1 set) | store write (1 set) | store read (1 set)\n");
  for (int r = 0; r < repeats; ++r) {
    const uint64_t seed = 1000 + 10 * r;
    Step step;
    HostData first = make_inputs(*plan, seed), second = make_inputs(*plan, seed + 1);
    auto inputs = step.done();

    step = Step();
    auto sets = prepare_reference_sets(**reference, *plan, {seed, seed + 1});
    auto with_inputs = step.done();  // draws the inputs again, then both references
    std::pair<double, double> references = {with_inputs.first - inputs.first,
                                            with_inputs.second - inputs.second};

    HostData got = as_kernel_outputs(*plan, sets[0].expected);
    step = Step();
    CheckReport check = compare_outputs(*plan, got, sets[0].expected);
    CheckReport repeat = compare_runs(*plan, got, got);
    CheckReport after = compare_outputs(*plan, got, sets[0].expected);
    auto compare = step.done();

    step = Step();
    auto doubles = outputs_as_double(*plan, got);
    auto to_double = step.done();

    const std::string key = ReferenceStore::key(built->program.cache_key, *plan, seed);
    step = Step();
    Status stored = store.store(key, *plan, sets[0].expected);
    auto write = step.done();
    step = Step();
    auto loaded = store.load(key, *plan);
    auto read = step.done();

    auto cell = [](std::pair<double, double> t) {
      static char text[8][32];
      static int next = 0;
      char* out = text[next++ % 8];
      std::snprintf(out, 32, "%.3f / %.3f", t.first, t.second);
      return out;
    };
    std::printf("  %s | %s | %s | %s | %s | %s%s\n", cell(inputs), cell(references), cell(compare),
                cell(to_double), cell(write), cell(read),
                check.passed && repeat.passed && after.passed && stored.ok() && loaded &&
                        !doubles.empty() && !first.empty() && !second.empty()
                    ? ""
                    : "  (a step failed)");
  }
  std::error_code ec;
  std::filesystem::remove_all(store.dir(), ec);
  return 0;
}
