// A timed sample is the kernel's own GPU duration (runner/cuda/kernel_timestamps.h):
// a kernel that spins 2.5 us against one that spins 2.0 us reads 1.20 by kernel
// durations on the H200, where the events around each launch add the same fixed
// cost to both and read 1.14 (the dilution it rules out); with the option off
// (KGATE_TIMER=events) the samples are the events'. Runs in a forked child, as kgate's
// measurements do. Skips without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "core/subprocess.h"
#include "runner/cuda/cuda_device.h"
#include "runner/cuda/gpu_inventory.h"

namespace kgate {
namespace {

const char* const kSpinPtx = R"ptx(
.version 7.0
.target sm_75
.address_size 64
.visible .entry kgate_test_spin(.param .u64 spin_ns)
{
  .reg .pred p;
  .reg .b64 lim, t0, t1, d;
  ld.param.u64 lim, [spin_ns];
  mov.u64 t0, %globaltimer;
SPIN:
  mov.u64 t1, %globaltimer;
  sub.u64 d, t1, t0;
  setp.lt.u64 p, d, lim;
  @p bra SPIN;
  ret;
}
)ptx";

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// "kernel <timer> short <s> long <s> ratio <r>" per timer, or what failed.
std::string spin_ratios() {
  auto opened = cuda::CudaDevice::open(0);
  if (!opened.ok()) return "open: " + opened.error().message;
  cuda::CudaDevice& gpu = **opened;
  auto spin = gpu.load_image(kSpinPtx, "kgate_test_spin");
  if (!spin.ok()) return "load: " + spin.error().message;
  auto slot = [](uint64_t ns) {
    ArgSlot a;
    std::memcpy(a.bytes, &ns, 8);
    a.size = 8;
    return std::vector<ArgSlot>{a};
  };
  LaunchDims dims;  // one thread
  std::string out;
  for (bool kernel_clock : {true, false}) {
    cuda::TimingOptions options = gpu.timing_options();
    options.kernel_clock = kernel_clock;
    gpu.set_timing_options(options);
    std::vector<double> short_s, long_s;
    for (int i = 0; i < 60; ++i) {
      auto a = gpu.time_launch(**spin, dims, slot(2000));
      auto b = gpu.time_launch(**spin, dims, slot(2500));
      if (!a.ok() || !b.ok()) return "time: " + (a.ok() ? b.error() : a.error()).message;
      short_s.push_back(a->seconds);
      long_s.push_back(b->seconds);
    }
    char line[256];
    std::snprintf(line, sizeof line, "%s|%.9g|%.9g|%.6f\n", gpu.info().timer.c_str(),
                  median(short_s), median(long_s), median(long_s) / median(short_s));
    out += line;
  }
  return out;
}

TEST(KernelTimestampsGpu, SamplesAreKernelDurationsThatEventsDilute) {
  auto inventory = cuda::gpu_inventory();
  if (!inventory.ok()) GTEST_SKIP() << inventory.error().message;
  ChildOutcome child = run_in_child(spin_ratios, 120);
  ASSERT_TRUE(child.completed) << child.describe(120) << "\n" << child.err_tail;
  std::printf("%s", child.payload.c_str());
  char kernel_timer[128] = {}, event_timer[128] = {};
  double ks = 0, kl = 0, kr = 0, es = 0, el = 0, er = 0;
  ASSERT_EQ(std::sscanf(child.payload.c_str(), "%127[^|]|%lf|%lf|%lf\n%127[^|]|%lf|%lf|%lf",
                        kernel_timer, &ks, &kl, &kr, event_timer, &es, &el, &er),
            8)
      << child.payload;
  EXPECT_STREQ(kernel_timer, "kernel durations (CUPTI)");
  EXPECT_STREQ(event_timer, "events");
  // The spin is most of the kernel: its duration is the spin and the launch's own ramp
  // (0.53 us on the H200, 2026-12-03), and the half microsecond between the two spins stays.
  EXPECT_GE(ks, 2.0e-6);
  EXPECT_LT(ks, 3.0e-6);
  EXPECT_NEAR(kl - ks, 0.5e-6, 0.1e-6);
  EXPECT_GT(kr, 1.15);
  // The events carry a fixed cost (2.2 us there) on top of the same kernels, so their ratio is
  // nearer 1: the dilution the kernel durations rule out.
  EXPECT_GT(es - ks, 1.0e-6);
  EXPECT_NEAR(el - es, 0.5e-6, 0.15e-6);
  EXPECT_LT(er, kr - 0.03);
}

}  // namespace
}  // namespace kgate
