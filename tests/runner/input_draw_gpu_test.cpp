// The GPU draws inputs as the host does (runner/input_formula.h): uniform and
// randint buffers of every type bit for bit; normal buffers alike but for
// rare tail elements whose log differs in the last bits: one unit in the last
// place of a narrow type at most, 1e-13 relative in double (the H200 showed
// 3 double elements of 2^20 beyond one unit). Runs in a forked child, as
// kgate's measurements do. Skips without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "core/subprocess.h"
#include "runner/cuda/cuda_backend.h"
#include "runner/cuda/gpu_inventory.h"
#include "runner/staged_inputs.h"
#include "support/every_draw.h"

namespace kgate {
namespace {

// One unit in the last place of `type` at `x` (1 for integers). Applied
// functions (cos, sin of a shared angle) may differ as normals do.
double ulp(DType type, double x) {
  const double m = std::max(std::abs(x), 1e-30);
  switch (type) {
    case DType::kFloat64:
      return std::ldexp(1.0, std::ilogb(m) - 52);
    case DType::kFloat32:
      return std::ldexp(1.0, std::ilogb(m) - 23);
    case DType::kFloat16:
      return std::ldexp(1.0, std::max(std::ilogb(m), -14) - 10);
    case DType::kBFloat16:
      return std::ldexp(1.0, std::ilogb(m) - 7);
    default:
      return 1;
  }
}

// Every disagreement beyond the contract, one per line; "" when none.
std::string draw_everywhere() {
  auto opened = make_cuda_backend()->open_device(0);
  if (!opened.ok()) return "open_device: " + opened.error().message + "\n";
  Device& device = **opened;
  std::string wrong;
  EveryDraw every((int64_t{1} << 20) + 7);
  Allocations owned(device);
  HostData drawn;
  auto staged = draw_inputs(device, every.plan, 7, owned, drawn);
  if (!staged.ok()) return "draw_inputs: " + staged.error().message + "\n";
  const HostData expected = make_inputs(every.plan, 7);
  for (size_t i = 0; i < every.plan.args.size(); ++i) {
    const ArgPlan& a = every.plan.args[i];
    const DType t = a.arg->dtype;
    if (a.arg->init.distribution != InitSpec::Distribution::kNormal &&
        a.arg->init.apply == InitSpec::Apply::kNone) {
      if (std::memcmp(drawn[i].data(), expected[i].data(), a.bytes) != 0)
        wrong += a.arg->name + ": the GPU's bytes differ from the host's\n";
      continue;
    }
    int64_t differ = 0;
    for (int64_t e = 0; e < a.count; ++e) {
      const double got = load_as_double(t, drawn[i].data(), e);
      const double want = load_as_double(t, expected[i].data(), e);
      if (got == want) continue;
      ++differ;
      const double allowed = t == DType::kFloat64 ? 1e-13 * std::abs(want) : ulp(t, want);
      if (std::abs(got - want) > allowed)
        wrong += a.arg->name + ": element " + std::to_string(e) + " is " + std::to_string(got) +
                 " on the GPU, " + std::to_string(want) + " on the host\n";
    }
    if (differ * 1000 > a.count)
      wrong += a.arg->name + ": " + std::to_string(differ) + " of " + std::to_string(a.count) +
               " elements differ (more than 0.1%)\n";
  }

  // silu_and_mul prefill-8k's input: 8192 x 28672 bfloat16 (470 MB).
  Arg x;
  x.name = "x";
  x.dtype = DType::kBFloat16;
  x.is_buffer = true;
  LaunchPlan big;
  const int64_t count = int64_t{8192} * 28672;
  big.args = {ArgPlan{&x, count, size_t(count) * 2}};
  HostData big_drawn;
  if (auto s = draw_inputs(device, big, 1, owned, big_drawn); !s.ok())
    return wrong + "draw_inputs (8k): " + s.error().message + "\n";
  HostData on_host = make_inputs(big, 1);
  int64_t differ = 0;
  for (int64_t e = 0; e < count; ++e)
    differ += std::memcmp(big_drawn[0].data() + 2 * e, on_host[0].data() + 2 * e, 2) != 0;
  if (differ * 1000 > count) wrong += "8k input: " + std::to_string(differ) + " elements differ\n";
  return wrong;
}

TEST(InputDrawGpu, TheGpuDrawsWhatTheHostDraws) {
  auto inventory = cuda::gpu_inventory();
  if (!inventory.ok()) GTEST_SKIP() << inventory.error().message;
  ChildOutcome child = run_in_child(draw_everywhere, 300);
  ASSERT_TRUE(child.completed) << child.describe(300) << "\n" << child.err_tail;
  EXPECT_EQ(child.payload, "");
}

}  // namespace
}  // namespace kgate
