// The cuda backend on a real GPU: every example kernel is correct on every
// shape it declares, planted bad kernels are caught with the right reason,
// results left on another stream are not waited for, and the per-GPU lock
// keeps a second kgate off a GPU that is being timed. Skips without a GPU.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "core/file_util.h"
#include "core/manifest_loader.h"
#include "core/subprocess.h"
#include "runner/cuda/cuda_backend.h"
#include "runner/cuda/cuda_device.h"
#include "runner/cuda/driver_calls.h"
#include "runner/cuda/gpu_inventory.h"
#include "runner/gpu_lock.h"
#include "runner/kernel_run.h"
#include "support/test_support.h"

namespace kgate {
namespace {

using testing::TempDir;

#define REQUIRE_GPU()                                               \
  do {                                                              \
    auto inventory = cuda::gpu_inventory();                         \
    if (!inventory.ok()) GTEST_SKIP() << inventory.error().message; \
  } while (0)

class CudaGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("KGATE_CACHE_DIR", (scratch_ / "cache").c_str(), 1);
    setenv("KGATE_LOCK_DIR", (scratch_ / "locks").c_str(), 1);
  }
  TempDir scratch_;
};

TEST_F(CudaGpuTest, EveryExampleKernelIsCorrectOnEveryShape) {
  REQUIRE_GPU();
  auto manifest = load_manifest(testing::example_dir());
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  auto backend = make_cuda_backend();
  int shapes = 0;
  for (const Kernel& kernel : manifest->kernels) {
    if (!kernel.implementation("cuda")) continue;
    KernelRunOptions options;
    options.seed = 20261130;
    options.time = false;  // timing is bench/'s job; correctness here
    auto started = std::chrono::steady_clock::now();
    auto report = run_kernel(*manifest, kernel, *backend, options);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::printf("  %s: %zu shapes checked in %.1f s\n", kernel.name.c_str(),
                report.ok() ? report->shapes.size() : 0, seconds);
    ASSERT_TRUE(report.ok()) << kernel.name << ": " << report.error().message;
    ASSERT_TRUE(report->compiled) << kernel.name << ": " << report->compile_error;
    for (const ShapeMeasurement& m : report->shapes) {
      ++shapes;
      EXPECT_EQ(m.status, MeasureStatus::kPass)
          << kernel.name << "/" << m.shape << ": " << m.reason;
      std::printf("  %-18s %-16s max abs %.3g  max rel %.3g  rel l2 %.3g  %s\n",
                  kernel.name.c_str(), m.shape.c_str(), m.check.max_abs_error,
                  m.check.max_rel_error, m.check.rel_l2_error,
                  m.status == MeasureStatus::kPass ? "pass" : m.reason.c_str());
    }
  }
  EXPECT_GE(shapes, 40);
}

TEST_F(CudaGpuTest, TimingGivesSamplesWithTheSmClock) {
  REQUIRE_GPU();
  auto manifest = load_manifest(testing::example_dir());
  ASSERT_TRUE(manifest.ok());
  auto backend = make_cuda_backend();
  KernelRunOptions options;
  options.shape = "prefill-2k";
  options.seed = 7;
  auto report = run_kernel(*manifest, *manifest->kernel("rmsnorm"), *backend, options);
  ASSERT_TRUE(report.ok() && report->compiled);
  ASSERT_EQ(report->shapes.size(), 1u);
  const ShapeMeasurement& m = report->shapes[0];
  ASSERT_EQ(m.status, MeasureStatus::kPass) << m.reason;
  EXPECT_GE(m.head_seconds.size(), 10u);
  EXPECT_EQ(m.head_clock_mhz.size(), m.head_seconds.size());
  EXPECT_GT(m.head_median(), 1e-6);
  EXPECT_LT(m.head_median(), 1e-2);
  for (double mhz : m.head_clock_mhz) EXPECT_GT(mhz, 100);
  EXPECT_GT(m.device.l2_bytes, 0);
  EXPECT_EQ(m.device.arch.rfind("sm_", 0), 0u);
  std::printf("  rmsnorm prefill-2k: median %.2f us, SM clock %.0f MHz (peak %.0f), %s\n",
              m.head_median() * 1e6, m.head_clock_mhz.front(), m.device.peak_sm_clock_mhz,
              m.device.name.c_str());
}

// A manifest with one float kernel out[i] = 2 * x[i], whose source the test plants.
class PlantedKernelTest : public CudaGpuTest {
 protected:
  ShapeMeasurement run_planted(const std::string& body) {
    testing::write(scratch_ / "k" / "kgate.json", R"json({
      "version": 1,
      "kernels": [{
        "name": "twice",
        "impl": {"cuda": {"source": "twice.cu", "entry": "twice",
                          "launch": {"grid": ["ceil_div(n, 256)"], "block": [256]}}},
        "args": [
          {"name": "out", "type": "float32*", "count": "n", "role": "output"},
          {"name": "x",   "type": "float32*", "count": "n"},
          {"name": "n",   "type": "int32",    "value": "n"}
        ],
        "shapes": [{"name": "s", "n": 100000}],
        "reference": {"source": "ref.cpp", "entry": "twice_ref"},
        "timing": {"warmup": 2, "samples": 10, "time_limit_s": 15}
      }]
    })json");
    testing::write(scratch_ / "k" / "ref.cpp",
                   "#include <cstdint>\n"
                   "void twice_ref(double* out, const float* x, int32_t n) {\n"
                   "  for (int32_t i = 0; i < n; ++i) out[i] = 2.0 * x[i];\n}\n");
    testing::write(scratch_ / "k" / "twice.cu", body);
    auto manifest = load_manifest(scratch_ / "k");
    EXPECT_TRUE(manifest.ok()) << manifest.error().message;
    if (!manifest.ok()) return {};
    auto backend = make_cuda_backend();
    KernelRunOptions options;
    options.seed = 3;
    auto report = run_kernel(*manifest, manifest->kernels[0], *backend, options);
    EXPECT_TRUE(report.ok()) << report.error().message;
    if (!report.ok()) return {};
    EXPECT_TRUE(report->compiled) << report->compile_error;
    if (report->shapes.empty()) return {};
    std::printf("  reason: %s\n", report->shapes[0].reason.c_str());
    return report->shapes[0];
  }
};

TEST_F(PlantedKernelTest, ACorrectKernelPasses) {
  REQUIRE_GPU();
  auto m = run_planted(
      "extern \"C\" __global__ void twice(float* out, const float* x, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) out[i] = 2.0f * x[i];\n}\n");
  EXPECT_EQ(m.status, MeasureStatus::kPass) << m.reason;
}

TEST_F(PlantedKernelTest, OutOfBoundsWriteIsAnIllegalAddress) {
  REQUIRE_GPU();
  auto m = run_planted(
      "extern \"C\" __global__ void twice(float* out, const float* x, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) out[i] = 2.0f * x[i];\n"
      "  if (i == n - 1) out[i + (1ll << 36)] = 1.0f;\n}\n");
  EXPECT_EQ(m.status, MeasureStatus::kFail);
  EXPECT_NE(m.reason.find("ILLEGAL_ADDRESS"), std::string::npos) << m.reason;
  // The launch it failed with: 391 blocks of 256 for n = 100000.
  EXPECT_NE(m.reason.find("grid 391x1x1, block 256x1x1"), std::string::npos) << m.reason;
}

// A kernel whose assert rules out the manifest's launch (a kernel changed
// without its launch): the failure names the assert and the launch.
TEST_F(PlantedKernelTest, AFailedAssertNamesTheLaunchItRanWith) {
  REQUIRE_GPU();
  auto m = run_planted(
      "#include <cassert>\n"
      "extern \"C\" __global__ void twice(float* out, const float* x, int n) {\n"
      "  assert(blockDim.x == 512);\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) out[i] = 2.0f * x[i];\n}\n");
  EXPECT_EQ(m.status, MeasureStatus::kFail);
  EXPECT_NE(m.reason.find("CUDA_ERROR_ASSERT"), std::string::npos) << m.reason;
  EXPECT_NE(m.reason.find("grid 391x1x1, block 256x1x1"), std::string::npos) << m.reason;
  EXPECT_NE(m.reason.find("an assert in the kernel failed"), std::string::npos) << m.reason;
}

TEST_F(PlantedKernelTest, AHangIsStoppedAtTheTimeLimit) {
  REQUIRE_GPU();
  auto m = run_planted(
      "extern \"C\" __global__ void twice(float* out, const float* x, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  while (*(volatile const float*)x != 12345.0f) {}\n"
      "  if (i < n) out[i] = 2.0f * x[i];\n}\n");
  EXPECT_EQ(m.status, MeasureStatus::kFail);
  EXPECT_NE(m.reason.find("hung"), std::string::npos) << m.reason;
}

TEST_F(PlantedKernelTest, AnUnwrittenElementIsCaught) {
  REQUIRE_GPU();
  auto m = run_planted(
      "extern \"C\" __global__ void twice(float* out, const float* x, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n - 1) out[i] = 2.0f * x[i];\n}\n");
  EXPECT_EQ(m.status, MeasureStatus::kFail);
  EXPECT_NE(m.reason.find("not written"), std::string::npos) << m.reason;
  EXPECT_EQ(m.check.first_bad_index, 99999);
}

TEST_F(PlantedKernelTest, AResultThatMovesBetweenRunsIsARace) {
  REQUIRE_GPU();
  // Every thread bumps a counter once per launch, so old / n is the launch
  // number; odd launches corrupt element 0: right on the first run, wrong on
  // the second, as a kernel whose result depends on timing would be.
  auto m = run_planted(
      "__device__ unsigned long long counter;\n"
      "extern \"C\" __global__ void twice(float* out, const float* x, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i >= n) return;\n"
      "  unsigned long long launch = atomicAdd(&counter, 1ull) / n;\n"
      "  out[i] = 2.0f * x[i] + ((launch & 1) && i == 0 ? 1.0f : 0.0f);\n}\n");
  EXPECT_EQ(m.status, MeasureStatus::kFail);
  EXPECT_NE(m.reason.find("race"), std::string::npos) << m.reason;
}

TEST_F(PlantedKernelTest, AResultReusedBetweenCallsFailsTheCheckAfterTiming) {
  REQUIRE_GPU();
  // Computes on the first two launches (the check and its repeat), then
  // leaves the output alone: right on the first inputs, stale (poison) on the
  // new inputs after timing. Each thread counts launches as in the race test.
  auto m = run_planted(
      "__device__ unsigned long long counter;\n"
      "extern \"C\" __global__ void twice(float* out, const float* x, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i >= n) return;\n"
      "  unsigned long long launch = atomicAdd(&counter, 1ull) / n;\n"
      "  if (launch < 2) out[i] = 2.0f * x[i];\n}\n");
  EXPECT_EQ(m.status, MeasureStatus::kFail);
  EXPECT_NE(m.reason.find("poison"), std::string::npos) << m.reason;
}

// Results that land through another stream are not waited for: download()
// is ordered after the timed stream only, so the harness sees poison.
TEST_F(CudaGpuTest, ResultsOnAnotherStreamAreNotWaitedFor) {
  REQUIRE_GPU();
  // CUDA must not start in the test process (the other tests fork children
  // that use it): do this in a child.
  ChildOutcome child = run_in_child(
      [] {
        auto device = cuda::CudaDevice::open(0);
        if (!device.ok()) return "open: " + device.error().message;
        const char* ptx =
            ".version 7.0\n.target sm_75\n.address_size 64\n"
            ".visible .entry late_write(.param .u64 out)\n{\n"
            "  .reg .pred p; .reg .b64 a, t0, t1, d; .reg .b32 v;\n"
            "  ld.param.u64 a, [out];\n  mov.u64 t0, %globaltimer;\n"
            "SPIN:\n  mov.u64 t1, %globaltimer;\n  sub.u64 d, t1, t0;\n"
            "  setp.lt.u64 p, d, 200000000;\n  @p bra SPIN;\n"
            "  mov.u32 v, 42;\n  st.global.u32 [a], v;\n  ret;\n}\n";
        auto kernel = (*device)->load_image(ptx, "late_write");
        if (!kernel.ok()) return "load: " + kernel.error().message;
        auto out = (*device)->allocate(4);
        if (!out.ok()) return std::string("alloc");
        if (!(*device)->fill(*out, 0xFF, 4).ok()) return std::string("fill");
        const cuda::Calls& c = **cuda::calls();
        CUstream side;
        if (c.cuStreamCreate(&side, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS)
          return std::string("stream");
        CUdeviceptr address = *out;
        void* params[] = {&address};
        if (c.cuLaunchKernel((*kernel)->function(), 1, 1, 1, 1, 1, 1, 0, side, params, nullptr) !=
            CUDA_SUCCESS)
          return std::string("launch");
        uint32_t seen = 0;
        if (!(*device)->download(&seen, *out, 4).ok()) return std::string("download");
        if (seen != 0xFFFFFFFFu)
          return "download waited for the side stream: saw " + std::to_string(seen);
        c.cuStreamSynchronize(side);
        if (!(*device)->download(&seen, *out, 4).ok() || seen != 42)
          return std::string("late write never landed");
        return std::string("ok");
      },
      60);
  ASSERT_TRUE(child.completed) << child.describe(60) << child.err_tail;
  EXPECT_EQ(child.payload, "ok");
}

// A second kgate waits while the GPU's lock is held, and runs once it is free.
TEST_F(CudaGpuTest, TheLockKeepsASecondRunOffTheGpu) {
  REQUIRE_GPU();
  auto inventory = cuda::gpu_inventory();
  auto held = GpuLock::try_acquire(inventory->gpus[0].pci_bus_id);
  ASSERT_TRUE(held.ok()) << held.error().message;
  CommandOutcome outcome;
  std::thread second([&] {
    outcome = testing::run_kgate({"run", testing::example_dir().string(), "--backend", "cuda",
                                  "--kernel", "rmsnorm", "--shape", "decode-b1"},
                                 "", 120);
  });
  auto start = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::seconds(4));
  { GpuLock release = std::move(held.value()); }
  second.join();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_NE(outcome.err.find("waiting for GPU"), std::string::npos) << outcome.err;
  EXPECT_GE(seconds, 4.0);
}

}  // namespace
}  // namespace kgate
