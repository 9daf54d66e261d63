// `kgate check`: every kernel of every backend compiled without a GPU, the
// errors digested per kernel, exit 1 when any fails; and what `kgate run`
// says when asked to run CUDA kernels on a machine without a GPU.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "runner/cuda/gpu_inventory.h"
#include "support/test_support.h"

namespace kgate {
namespace {

using testing::run_kgate;

// A private compile cache: the checks compile for real.
class CheckCommand : public ::testing::Test {
 protected:
  void SetUp() override { testing::use_private_compile_cache(); }
};

TEST_F(CheckCommand, TheExampleCompilesForTwoArchitecturesAndTheHost) {
  testing::TempDir dir;
  auto out = run_kgate({"check", testing::example_dir().string(), "--arch", "sm_80,90", "--json",
                        (dir / "check.json").string()});
  EXPECT_EQ(out.exit_code, 0) << out.out << out.err;
  for (const char* row : {"cuda sm_80", "cuda sm_90", "host", "reference", "0 failed"})
    EXPECT_NE(out.out.find(row), std::string::npos) << row << "\n" << out.out;
  auto j = nlohmann::json::parse(testing::read(dir / "check.json"));
  EXPECT_EQ(j["cuda_archs"], nlohmann::json({"sm_80", "sm_90"}));
  size_t cuda = 0;
  for (const auto& c : j["compiles"]) {
    EXPECT_TRUE(c["ok"].get<bool>()) << c.dump();
    cuda += c["target"].get<std::string>().rfind("cuda ", 0) == 0;
  }
  EXPECT_GE(cuda, 12u);  // six CUDA kernels, two architectures
}

TEST_F(CheckCommand, EveryTunableSettingOfATemplatedKernel) {
  auto out = run_kgate({"check", (testing::fixtures_dir() / "templated").string(), "--arch",
                        "sm_90", "--all-tunables"});
  EXPECT_EQ(out.exit_code, 0) << out.out << out.err;
  EXPECT_NE(out.out.find("3 settings"), std::string::npos) << out.out;  // BLOCK: 256, 128, 64
  EXPECT_NE(out.out.find("2 settings"), std::string::npos) << out.out;  // UNROLL: 1, 4
  EXPECT_NE(out.out.find("check: 6 compiles, 0 failed"), std::string::npos) << out.out;
}

TEST_F(CheckCommand, APortingErrorIsDigestedPerKernelAndExitsOne) {
  testing::TempDir dir;
  std::filesystem::copy(testing::fixtures_dir() / "templated", dir.path(),
                        std::filesystem::copy_options::recursive);
  // A kernel that only the other architecture can compile: sm_90's cluster intrinsics.
  testing::write(dir / "csrc" / "scale.cu",
                 "namespace lib {\n"
                 "template <class T, int BLOCK, bool WIDE>\n"
                 "__global__ void scale(T* out, const T* x, int n) {\n"
                 "  int i = blockIdx.x * BLOCK + threadIdx.x;\n"
                 "#if __CUDA_ARCH__ < 900\n"
                 "  undeclared_before_hopper(i);\n"
                 "#endif\n"
                 "  if (i < n) out[i] = x[i] * T(2);\n"
                 "}\n"
                 "}  // namespace lib\n");
  auto out = run_kgate({"check", dir.path().string(), "--arch", "sm_80,sm_90"});
  EXPECT_EQ(out.exit_code, 1) << out.out << out.err;
  EXPECT_NE(out.out.find("scale (cuda sm_80, BLOCK=256) does not compile:"), std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find("csrc/scale.cu:6: error:"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("undeclared_before_hopper"), std::string::npos) << out.out;
  EXPECT_EQ(out.out.find("(cuda sm_90, BLOCK=256) does not compile"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("check: 4 compiles, 1 failed"), std::string::npos) << out.out;
  EXPECT_EQ(out.out.find(dir.path().string() + "/csrc"), std::string::npos)
      << "messages name the repository's files, not the folder they were read from";
}

TEST_F(CheckCommand, OnlyTheHostBackendNeedsNoArchitecture) {
  auto out =
      run_kgate({"check", (testing::fixtures_dir() / "templated").string(), "--backend", "host"});
  EXPECT_EQ(out.exit_code, 0) << out.out << out.err;
  EXPECT_EQ(out.out.find("cuda"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("check: 1 compile, 0 failed"), std::string::npos) << out.out;
}

TEST_F(CheckCommand, WithoutAGpuOrAnArchitectureItSaysWhatToGive) {
  if (cuda::gpu_inventory().ok()) GTEST_SKIP() << "a GPU is present: check compiles for it";
  unsetenv("KGATE_CUDA_ARCH");
  auto out = run_kgate({"check", (testing::fixtures_dir() / "templated").string()});
  EXPECT_EQ(out.exit_code, 2) << out.out << out.err;
  EXPECT_NE(out.err.find("give --arch"), std::string::npos) << out.err;
  out = run_kgate({"check", (testing::fixtures_dir() / "templated").string(), "--arch", "volta"});
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_NE(out.err.find("'volta' is not a CUDA architecture"), std::string::npos) << out.err;
}

TEST(CudaRunWithoutGpu, KgateCudaArchCompilesButRunningNeedsAGpu) {
  if (cuda::gpu_inventory().ok()) GTEST_SKIP() << "a GPU is present here";
  setenv("KGATE_CUDA_ARCH", "sm_90", 1);
  auto out = run_kgate({"run", testing::example_dir().string(), "--backend", "cuda"});
  unsetenv("KGATE_CUDA_ARCH");
  EXPECT_EQ(out.exit_code, 3) << out.err;
  EXPECT_NE(out.err.find("no GPU found"), std::string::npos) << out.err;
  EXPECT_NE(out.err.find("running and timing them needs one"), std::string::npos) << out.err;
  EXPECT_NE(out.err.find("kgate check --arch sm_90"), std::string::npos) << out.err;
}

}  // namespace
}  // namespace kgate
