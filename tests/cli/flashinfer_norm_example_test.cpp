// examples/flashinfer-norm without a GPU: FlashInfer's normalization kernels,
// ported with their headers unchanged, load (`kgate validate`) and compile for
// two architectures with nvcc, template instantiations, host references and
// reference kernels included (`kgate check`), as CI without a GPU runs them.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "runner/cuda/cuda_toolkit.h"
#include "support/test_support.h"

namespace kgate {
namespace {

using testing::run_kgate;

std::filesystem::path flashinfer_dir() {
  return testing::source_dir() / "examples" / "flashinfer-norm";
}

TEST(FlashinferNormExample, ValidatesWithEveryKernelAndShape) {
  auto out = run_kgate({"validate", flashinfer_dir().string()});
  EXPECT_EQ(out.exit_code, 0) << out.out << out.err;
  EXPECT_NE(out.out.find("ok (4 kernels, 28 shapes)"), std::string::npos) << out.out;
}

TEST(FlashinferNormExample, EveryKernelAndReferenceCompilesForTwoArchitecturesWithoutAGpu) {
  if (!cuda::nvcc_path().ok()) GTEST_SKIP() << "no nvcc: the example compiles with nvcc";
  testing::use_private_compile_cache();
  testing::TempDir dir;
  auto out = run_kgate({"check", flashinfer_dir().string(), "--arch", "sm_80,sm_90", "--json",
                        (dir / "check.json").string()},
                       "", 900);
  ASSERT_EQ(out.exit_code, 0) << out.out << out.err;
  auto j = nlohmann::json::parse(testing::read(dir / "check.json"));
  std::map<std::string, int> targets;
  for (const auto& c : j["compiles"]) {
    EXPECT_TRUE(c["ok"].get<bool>()) << c.dump();
    targets[c["target"].get<std::string>()]++;
  }
  // Per architecture, four kernels and each kernel's reference kernel; four
  // host references.
  EXPECT_EQ(targets["cuda sm_80"], 4);
  EXPECT_EQ(targets["cuda sm_90"], 4);
  EXPECT_EQ(targets["reference"], 4);
  EXPECT_EQ(targets["reference cuda sm_80"], 4);
  EXPECT_EQ(targets["reference cuda sm_90"], 4);
  // Every entry is the template instantiation FlashInfer's launchers use.
  for (const auto& c : j["compiles"]) {
    if (c["target"] != "cuda sm_90") continue;
    const std::string symbol = c["symbol"];
    EXPECT_TRUE(symbol.rfind("_ZN10flashinfer4norm", 0) == 0) << symbol;
  }
}

TEST(FlashinferNormExample, ABrokenReferenceKernelFailsTheCheck) {
  if (!cuda::nvcc_path().ok()) GTEST_SKIP() << "no nvcc";
  testing::use_private_compile_cache();
  testing::TempDir dir;
  std::filesystem::copy(flashinfer_dir(), dir.path(), std::filesystem::copy_options::recursive);
  std::string ref = testing::read(dir / "ref" / "fused_add_rmsnorm_ref.cu");
  ref.replace(ref.find("sum = ref_block_sum(sum);"), 25, "sum = ref_block_summ(sum);");
  testing::write(dir / "ref" / "fused_add_rmsnorm_ref.cu", ref);
  auto out = run_kgate(
      {"check", dir.path().string(), "--arch", "sm_90", "--kernel", "fused_add_rmsnorm_f16"}, "",
      600);
  EXPECT_EQ(out.exit_code, 1) << out.out << out.err;
  EXPECT_NE(out.out.find("fused_add_rmsnorm_f16 (reference cuda sm_90, -) does not compile"),
            std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find("ref_block_summ"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("check: 3 compiles, 1 failed"), std::string::npos) << out.out;
}

}  // namespace
}  // namespace kgate
