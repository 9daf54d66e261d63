// On a GPU: template-id entries load and run by their mangled symbol, with
// NVRTC and with nvcc, for every tunable value; a C++-linkage kernel (the CUDA
// samples' vectorAdd) runs by its plain name; and assert under NVRTC traps on
// the device as under nvcc. Skips without a GPU.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/manifest_loader.h"
#include "runner/cuda/cuda_backend.h"
#include "runner/cuda/cuda_toolkit.h"
#include "runner/cuda/gpu_inventory.h"
#include "runner/kernel_run.h"
#include "support/test_support.h"
#include "support/tunable_check.h"
#include "support/tunable_combinations.h"

namespace kgate {
namespace {

#define REQUIRE_GPU()                                               \
  do {                                                              \
    auto inventory = cuda::gpu_inventory();                         \
    if (!inventory.ok()) GTEST_SKIP() << inventory.error().message; \
  } while (0)

class TemplateEntryGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("KGATE_CACHE_DIR", (scratch_ / "cache").c_str(), 1);
    setenv("KGATE_LOCK_DIR", (scratch_ / "locks").c_str(), 1);
  }
  // Checks (no timing) every shape of the manifest's only kernel.
  Result<KernelRunReport> check(const std::filesystem::path& dir) {
    auto manifest = load_manifest(dir);
    if (!manifest.ok()) return manifest.error();
    manifest_ = std::move(manifest.value());
    KernelRunOptions options;
    options.seed = 20261201;
    options.time = false;
    return run_kernel(manifest_, manifest_.kernels.at(0), *make_cuda_backend(), options);
  }
  testing::TempDir scratch_;
  Manifest manifest_;
};

TEST_F(TemplateEntryGpuTest, ATemplatedKernelRunsForEveryTunableValueWithBothCompilers) {
  REQUIRE_GPU();
  auto loaded = load_manifest(testing::fixtures_dir() / "templated");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  Manifest manifest = std::move(loaded.value());
  Kernel& kernel = manifest.kernels.at(0);
  std::vector<const Shape*> shapes;
  for (const Shape& s : kernel.shapes) shapes.push_back(&s);
  std::vector<std::string> compilers = {"nvrtc"};
  if (cuda::nvcc_path().ok()) compilers.push_back("nvcc");
  auto backend = make_cuda_backend();
  for (const std::string& compiler : compilers) {
    for (Implementation& impl : kernel.implementations)
      if (impl.backend == "cuda") impl.compile.compiler = compiler;
    testing::TunableCheckCount count;
    testing::check_tunable_combinations(
        manifest, kernel, *backend, "cuda",
        testing::all_combinations(kernel.implementation("cuda")->tunables), shapes, &count);
    EXPECT_EQ(count.checks, 6) << compiler;  // BLOCK 256, 128, 64 on two shapes
    EXPECT_EQ(count.failed, 0) << compiler;
  }
}

TEST_F(TemplateEntryGpuTest, ACppLinkageKernelRunsByItsPlainName) {
  REQUIRE_GPU();
  testing::TempDir dir;
  testing::write(dir / "vectorAdd.cu",
                 "__global__ void vectorAdd(const float *A, const float *B, float *C, int "
                 "numElements) {\n"
                 "  int i = blockDim.x * blockIdx.x + threadIdx.x;\n"
                 "  if (i < numElements) C[i] = A[i] + B[i] + 0.0f;\n"
                 "}\n");
  testing::write(dir / "ref.cpp",
                 "void add_ref(const float* a, const float* b, double* c, int n) {\n"
                 "  for (int i = 0; i < n; ++i) c[i] = (double)a[i] + b[i];\n"
                 "}\n");
  testing::write(dir / "kgate.json", R"~({"kernels": [{"name": "vector_add",
    "impl": {"cuda": {"source": "vectorAdd.cu", "entry": "vectorAdd",
                      "launch": {"grid": ["ceil_div(n, 256)"], "block": [256]}}},
    "args": [{"name": "A", "type": "float*", "count": "n"},
             {"name": "B", "type": "float*", "count": "n"},
             {"name": "C", "type": "float*", "count": "n", "role": "output"},
             {"name": "n", "type": "int32", "value": "n"}],
    "shapes": [{"name": "sample", "phase": "decode", "n": 50000}],
    "reference": {"source": "ref.cpp", "entry": "add_ref"}}]})~");
  auto report = check(dir.path());
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_TRUE(report->compiled) << report->compile_error;
  EXPECT_EQ(report->program.entry, "_Z9vectorAddPKfS0_Pfi");
  ASSERT_EQ(report->shapes.size(), 1u);
  EXPECT_EQ(report->shapes[0].status, MeasureStatus::kPass) << report->shapes[0].reason;
}

TEST_F(TemplateEntryGpuTest, AFailingAssertUnderNvrtcTrapsOnTheDevice) {
  REQUIRE_GPU();
  testing::TempDir dir;
  testing::write(dir / "k.cu",
                 "#include <assert.h>\n"
                 "extern \"C\" __global__ void copy(float* out, const float* x, int n) {\n"
                 "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "  assert(n < 100);\n"
                 "  if (i < n) out[i] = x[i];\n"
                 "}\n");
  testing::write(dir / "ref.cpp",
                 "void copy_ref(double* out, const float* x, int n) {\n"
                 "  for (int i = 0; i < n; ++i) out[i] = x[i];\n"
                 "}\n");
  testing::write(dir / "kgate.json", R"~({"kernels": [{"name": "copy",
    "impl": {"cuda": {"source": "k.cu", "entry": "copy",
                      "launch": {"grid": ["ceil_div(n, 128)"], "block": [128]}}},
    "args": [{"name": "out", "type": "float*", "count": "n", "role": "output"},
             {"name": "x", "type": "float*", "count": "n"},
             {"name": "n", "type": "int32", "value": "n"}],
    "shapes": [{"name": "small", "phase": "decode", "n": 50},
               {"name": "big", "phase": "prefill", "n": 1000}],
    "reference": {"source": "ref.cpp", "entry": "copy_ref"}}]})~");
  auto report = check(dir.path());
  ASSERT_TRUE(report.ok()) << report.error().message;
  ASSERT_TRUE(report->compiled) << report->compile_error;
  ASSERT_EQ(report->shapes.size(), 2u);
  EXPECT_EQ(report->shapes[0].status, MeasureStatus::kPass) << report->shapes[0].reason;
  EXPECT_NE(report->shapes[1].status, MeasureStatus::kPass);
  EXPECT_NE(report->shapes[1].reason.find("CUDA_ERROR_ASSERT"), std::string::npos)
      << report->shapes[1].reason;
}

}  // namespace
}  // namespace kgate
