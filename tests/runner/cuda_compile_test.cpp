// The cuda backend's compile path, which needs no GPU and no driver: NVRTC
// (and nvcc, where installed) build the example kernels for a named
// architecture, errors come back structured, refused flags are refused, and
// a rerun is served by the compile cache.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>

#include "core/manifest_loader.h"
#include "runner/cuda/cuda_backend.h"
#include "runner/cuda/cuda_toolkit.h"
#include "runner/cuda/gpu_inventory.h"
#include "runner/cuda/ptxas_report.h"
#include "support/test_support.h"

namespace kgate {
namespace {

using testing::TempDir;

class CudaCompileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("KGATE_CACHE_DIR", (cache_ / "cache").c_str(), 1);
    auto m = load_manifest(testing::example_dir().string());
    ASSERT_TRUE(m.ok()) << m.error().message;
    manifest_ = std::move(m.value());
  }
  void TearDown() override { unsetenv("KGATE_CACHE_DIR"); }

  CompileRequest request_for(const std::string& name) {
    const Kernel* k = manifest_.kernel(name);
    EXPECT_NE(k, nullptr) << name;
    CompileRequest r;
    r.kernel = k;
    r.impl = k ? k->implementation("cuda") : nullptr;
    r.root = manifest_.root;
    return r;
  }

  TempDir cache_;
  Manifest manifest_;
};

// The GPU tests' planted kernels (memory rules, compute-sanitizer) compile
// here, so a later session on a GPU runs them rather than fixing them.
TEST_F(CudaCompileTest, PlantedBadKernelsCompileWithoutAGpu) {
  auto backend = make_cuda_backend("sm_90");
  int compiled = 0;
  for (const char* folder : {"bad-kernels", "sanitize-kernels"}) {
    auto m = load_manifest(testing::fixtures_dir() / folder);
    ASSERT_TRUE(m.ok()) << m.error().message;
    for (const Kernel& k : m->kernels) {
      if (!k.implementation("cuda")) continue;
      CompileRequest r;
      r.kernel = &k;
      r.impl = k.implementation("cuda");
      r.root = m->root;
      auto outcome = backend->compile(r);
      ASSERT_TRUE(outcome.ok()) << k.name << ": " << outcome.error().message;
      EXPECT_TRUE(outcome->ok) << k.name << ":\n" << outcome->log;
      ++compiled;
    }
  }
  EXPECT_EQ(compiled, 5);
}

TEST_F(CudaCompileTest, EveryExampleKernelCompilesWithNvrtcWithoutAGpu) {
  auto backend = make_cuda_backend("sm_90");
  int compiled = 0;
  for (const Kernel& k : manifest_.kernels) {
    if (!k.implementation("cuda")) continue;
    CompileRequest r = request_for(k.name);
    auto outcome = backend->compile(r);
    ASSERT_TRUE(outcome.ok()) << k.name << ": " << outcome.error().message;
    ASSERT_TRUE(outcome->ok) << k.name << ":\n" << outcome->log;
    EXPECT_EQ(outcome->program.backend, "cuda");
    EXPECT_TRUE(std::filesystem::exists(outcome->program.artifact)) << k.name;
    EXPECT_GT(outcome->program.resources.registers, 0) << k.name << ":\n" << outcome->log;
    EXPECT_EQ(outcome->program.resources.spill_store_bytes, 0) << k.name;
    EXPECT_GE(outcome->program.resources.stack_bytes, 0) << k.name;
    EXPECT_FALSE(outcome->program.from_cache);
    ++compiled;
  }
  EXPECT_GE(compiled, 6);
}

TEST_F(CudaCompileTest, RerunIsServedByTheCache) {
  auto backend = make_cuda_backend("sm_90");
  CompileRequest r = request_for("rmsnorm");
  auto first = backend->compile(r);
  ASSERT_TRUE(first.ok() && first->ok);
  auto start = std::chrono::steady_clock::now();
  auto second = make_cuda_backend("sm_90")->compile(r);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(second.ok() && second->ok);
  EXPECT_TRUE(second->program.from_cache);
  EXPECT_EQ(second->program.cache_key, first->program.cache_key);
  EXPECT_EQ(second->program.resources.registers, first->program.resources.registers);
  EXPECT_LT(seconds, 0.5);

  // Anything that shapes the cubin changes the key: a tunable, the architecture.
  r.tunables["BLOCK"] = 512;
  auto other_block = backend->compile(r);
  ASSERT_TRUE(other_block.ok() && other_block->ok);
  EXPECT_FALSE(other_block->program.from_cache);
  EXPECT_NE(other_block->program.cache_key, first->program.cache_key);
  r.tunables.clear();
  auto other_arch = make_cuda_backend("sm_80")->compile(r);
  ASSERT_TRUE(other_arch.ok() && other_arch->ok);
  EXPECT_NE(other_arch->program.cache_key, first->program.cache_key);
}

TEST_F(CudaCompileTest, CompileErrorsComeBackStructured) {
  auto backend = make_cuda_backend("sm_90");
  CompileRequest r = request_for("rmsnorm");
  r.source_text =
      "#include <cuda_fp16.h>\n"
      "extern \"C\" __global__ void rmsnorm(__half* out) {\n"
      "  out[0] = undefined_thing;\n"
      "}\n";
  auto outcome = backend->compile(r);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_FALSE(outcome->ok);
  ASSERT_FALSE(outcome->diagnostics.empty()) << outcome->log;
  const CompileDiagnostic& d = outcome->diagnostics.front();
  EXPECT_EQ(d.file, "csrc/rmsnorm.cu");
  EXPECT_EQ(d.line, 3);
  EXPECT_EQ(d.kind, "error");
  EXPECT_NE(d.message.find("undefined_thing"), std::string::npos) << d.message;
  EXPECT_NE(outcome->digest().find("csrc/rmsnorm.cu"), std::string::npos);
}

TEST_F(CudaCompileTest, NumericsFlagsAreRefused) {
  auto backend = make_cuda_backend("sm_90");
  CompileRequest r = request_for("softmax");
  r.extra_flags = {"--use_fast_math"};
  auto outcome = backend->compile(r);
  ASSERT_FALSE(outcome.ok());
  EXPECT_NE(outcome.error().message.find("fast_math"), std::string::npos)
      << outcome.error().message;
}

TEST_F(CudaCompileTest, NvccCompilesWhenAskedFor) {
  if (!cuda::nvcc_path().ok()) GTEST_SKIP() << "nvcc is not installed here";
  auto backend = make_cuda_backend("sm_90");
  CompileRequest r = request_for("silu_and_mul");
  Implementation impl = *r.impl;
  impl.compile.compiler = "nvcc";
  impl.compile.flags = {"-O3"};
  r.impl = &impl;
  auto outcome = backend->compile(r);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  ASSERT_TRUE(outcome->ok) << outcome->log;
  EXPECT_GT(outcome->program.resources.registers, 0) << outcome->log;
  r.source_text = "extern \"C\" __global__ void silu_and_mul() { int x = ; }\n";
  auto broken = backend->compile(r);
  ASSERT_TRUE(broken.ok());
  ASSERT_FALSE(broken->ok);
  ASSERT_FALSE(broken->diagnostics.empty()) << broken->log;
  EXPECT_EQ(broken->diagnostics.front().file, "csrc/silu_and_mul.cu");
  EXPECT_EQ(broken->diagnostics.front().line, 1);
}

TEST(CudaArch, NamesAreNormalizedAndNonsenseRefused) {
  EXPECT_EQ(*cuda::target_arch(0, "90"), "sm_90");
  EXPECT_EQ(*cuda::target_arch(0, "sm80"), "sm_80");
  EXPECT_EQ(*cuda::target_arch(0, "sm_90a"), "sm_90a");
  EXPECT_FALSE(cuda::target_arch(0, "hopper").ok());
}

TEST(PtxasReport, ReadsTheEntryFunctionsNumbers) {
  const char* log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'other' for 'sm_90'\n"
      "ptxas info    : Function properties for other\n"
      "    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Used 200 registers, used 0 barriers, 380 bytes cmem[0]\n"
      "ptxas info    : Compiling entry function 'rmsnorm' for 'sm_90'\n"
      "ptxas info    : Function properties for rmsnorm\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 18 registers, used 1 barriers, 1024 bytes smem, 388 bytes cmem[0]\n";
  ResourceReport r = cuda::parse_ptxas_report(log, "rmsnorm");
  EXPECT_EQ(r.registers, 18);
  EXPECT_EQ(r.shared_bytes, 1024);
  EXPECT_EQ(r.stack_bytes, 0);
  EXPECT_EQ(r.spill_store_bytes, 0);
  ResourceReport o = cuda::parse_ptxas_report(log, "other");
  EXPECT_EQ(o.registers, 200);
  EXPECT_EQ(o.spill_load_bytes, 4);
}

TEST(CudaWithoutGpu, KgateRunSaysPlainlyThatNoGpuWasFound) {
  if (cuda::gpu_inventory().ok())
    GTEST_SKIP() << "a GPU is present here; this test is for machines without one";
  auto outcome = testing::run_kgate({"run", testing::example_dir().string(), "--backend", "cuda"});
  EXPECT_EQ(outcome.exit_code, 3) << outcome.err;
  EXPECT_NE(outcome.err.find("no GPU found"), std::string::npos) << outcome.err;
}

}  // namespace
}  // namespace kgate
