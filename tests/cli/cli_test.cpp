// The kgate executable end to end: exit codes, messages, the per-shape table.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace kgate {
namespace {

using testing::run_kgate;

std::string fixtures() {
  return testing::fixtures_dir().string();
}

TEST(Cli, HelpListsSubcommandsAndExitsZero) {
  auto out = run_kgate({"--help"});
  EXPECT_EQ(out.exit_code, 0);
  for (const char* sub : {"run", "validate", "version"})
    EXPECT_NE(out.out.find(sub), std::string::npos) << sub;
}

TEST(Cli, UnknownSubcommandIsBadUsage) {
  auto out = run_kgate({"frobnicate"});
  EXPECT_EQ(out.exit_code, 2) << out.err;
}

TEST(Cli, VersionPrintsVersion) {
  auto out = run_kgate({"version"});
  EXPECT_EQ(out.exit_code, 0);
  EXPECT_EQ(out.out.rfind("kgate ", 0), 0u) << out.out;
}

TEST(Cli, ValidateAcceptsTheExample) {
  auto out = run_kgate({"validate", testing::example_dir().string()});
  EXPECT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.out.find(": ok ("), std::string::npos) << out.out;
}

TEST(Cli, ValidateOnABrokenManifestExitsTwoWithTheJsonPath) {
  testing::TempDir dir;
  testing::write(dir / "k.cpp", "");
  testing::write(dir / "kgate.json",
                 R"({"kernels": [{"name": "k", "impl": {"host": {"source": "k.cpp", "entry": "k"}},
      "args": [{"name": "out", "type": "float*", "count": "rows * colz", "role": "output"}],
      "shapes": [{"name": "a", "rows": 1, "cols": 2}], "reference": {"source": "k.cpp", "entry": "r"}}]})");
  auto out = run_kgate({"validate", dir.path().string()});
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_NE(out.err.find("kernels[0].args[0].count"), std::string::npos) << out.err;
  EXPECT_NE(out.err.find("unknown name 'colz'"), std::string::npos) << out.err;
  EXPECT_TRUE(out.out.empty()) << "errors go to stderr: " << out.out;
}

TEST(Cli, RunGoesOnPastBadKernelsAndExitsOne) {
  testing::TempDir dir;
  auto json_path = dir / "results.json";
  auto out = run_kgate({"run", fixtures() + "/bad-kernels", "--shape", "odd", "--backend", "host",
                        "--json", json_path.string()});
  EXPECT_EQ(out.exit_code, 1) << out.err;
  // Every kernel has its row: a failure does not stop the run.
  for (const char* kernel :
       {"scale", "segfault", "hang", "skip_last", "nan_result", "racy", "stale", "wrong",
        "past_end_odd", "before_start", "mutates_input", "reads_output"})
    EXPECT_NE(out.out.find(kernel), std::string::npos) << kernel << " missing from:\n" << out.out;
  auto results = nlohmann::json::parse(testing::read(json_path));
  ASSERT_EQ(results["kernels"].size(), 12u);
  EXPECT_EQ(results["kernels"][0]["kernel"], "scale");
  EXPECT_TRUE(results["kernels"][0]["passed"].get<bool>());
  EXPECT_FALSE(results["kernels"][1]["passed"].get<bool>());
  EXPECT_NE(results["kernels"][1]["shapes"][0]["reason"].get<std::string>().find("crashed"),
            std::string::npos);
}

TEST(Cli, RunPrintsAPerShapeTableForTheExample) {
  auto out = run_kgate(
      {"run", testing::example_dir().string(), "--backend", "host", "--kernel", "silu_and_mul"});
  EXPECT_EQ(out.exit_code, 0) << out.err;
  for (const char* column : {"shape", "phase", "median", "max abs err", "check"})
    EXPECT_NE(out.out.find(column), std::string::npos) << column;
  for (const char* shape : {"decode-b1", "prefill-256", "edge-1x1", "odd-3x14335"})
    EXPECT_NE(out.out.find(shape), std::string::npos) << shape;
  EXPECT_EQ(out.out.find("prefill-2k"), std::string::npos) << "a cuda-only shape ran on the host";
  EXPECT_NE(out.err.find("kgate: compiling silu_and_mul"), std::string::npos)
      << "progress goes to stderr";
}

TEST(Cli, CudaBackendWithoutAGpuSaysSoAndExitsThree) {
  auto out = run_kgate({"run", testing::example_dir().string(), "--backend", "cuda"});
  if (out.exit_code != 3 && out.err.find("no GPU found") == std::string::npos)
    GTEST_SKIP() << "a GPU is present here; this test covers machines without one";
  EXPECT_EQ(out.exit_code, 3);
  EXPECT_NE(out.err.find("no GPU found"), std::string::npos) << out.err;
}

TEST(Cli, MissingManifestIsBadInput) {
  testing::TempDir dir;
  auto out = run_kgate({"run", dir.path().string()});
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_NE(out.err.find("no kgate.json"), std::string::npos) << out.err;
}

}  // namespace
}  // namespace kgate
