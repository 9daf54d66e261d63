// compute-sanitizer's output (the layouts its memcheck and racecheck print)
// read into the one line a verdict carries, folders dropped.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/manifest_loader.h"
#include "runner/sanitizer_report.h"
#include "support/test_support.h"

namespace kgate {
namespace {

TEST(SanitizerReport, MemcheckNamesTheAccessTheKernelAndTheAllocation) {
  const char* out =
      "========= COMPUTE-SANITIZER\n"
      "========= Invalid __global__ write of size 4 bytes\n"
      "=========     at past_end_odd+0x1a0 in /tmp/kgate-gate-abc/head/kernels.cu:13\n"
      "=========     by thread (3,0,0) in block (0,0,0)\n"
      "=========     Address 0x7f2a0000001c is out of bounds\n"
      "=========     and is 1 bytes after the nearest allocation at 0x7f2a00000000 of size 28 "
      "bytes\n"
      "=========     Saved host backtrace up to driver entry point at kernel launch time\n"
      "=========         Host Frame: [0x2d4a1b] in libcuda.so.1\n"
      "=========\n"
      "{\"kernel\": \"past_end_odd\"}\n"
      "========= ERROR SUMMARY: 1 error\n";
  std::string line = summarize_sanitizer_output("memcheck", out);
  EXPECT_EQ(line.rfind("memcheck: Invalid __global__ write of size 4 bytes at past_end_odd+0x1a0 "
                       "in kernels.cu:13 (Address 0x7f2a0000001c is out of bounds, and is 1 "
                       "bytes after the nearest allocation",
                       0),
            0u)
      << line;
  EXPECT_NE(line.find("; 1 error"), std::string::npos) << line;
  EXPECT_EQ(line.find("/tmp"), std::string::npos) << line;
}

TEST(SanitizerReport, RacecheckKeepsTheFirstHazard) {
  const char* out =
      "========= COMPUTE-SANITIZER\n"
      "========= Error: Race reported between Write access at reduce+0x2f0 in /src/reduce.cu:40\n"
      "=========     and Read access at reduce+0x310 in /src/reduce.cu:42 [32 hazards]\n"
      "=========\n"
      "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)\n"
      "========= ERROR SUMMARY: 3 errors\n";
  std::string line = summarize_sanitizer_output("racecheck", out);
  EXPECT_EQ(line.rfind("racecheck: Error: Race reported between Write access at reduce+0x2f0 in "
                       "reduce.cu:40 (and Read access at reduce+0x310 in reduce.cu:42 [32 "
                       "hazards])",
                       0),
            0u)
      << line;
  EXPECT_NE(line.find("; 3 errors"), std::string::npos) << line;
}

TEST(SanitizerReport, CleanOutputSaysNothing) {
  EXPECT_EQ(summarize_sanitizer_output(
                "memcheck", "========= COMPUTE-SANITIZER\n{}\n========= ERROR SUMMARY: 0 errors\n"),
            "");
}

TEST(SanitizerReport, ManifestTakesKnownToolsOnce) {
  std::filesystem::path fixture = testing::fixtures_dir() / "bad-kernels";
  auto load = [&](const nlohmann::json& gate) {
    auto doc = nlohmann::json::parse(testing::read(fixture / "kgate.json"));
    doc["gate"] = gate;
    return parse_manifest(doc.dump(), "kgate.json", fixture);
  };
  auto good = load({{"sanitize", {"memcheck", "racecheck"}}});
  ASSERT_TRUE(good.ok()) << good.error().message;
  EXPECT_EQ(good->gate.sanitize, (std::vector<std::string>{"memcheck", "racecheck"}));
  auto bad = load({{"sanitize", {"memcheck", "leakcheck"}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("gate.sanitize[1]"), std::string::npos) << bad.error().message;
  auto twice = load({{"sanitize", {"memcheck", "memcheck"}}});
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().message.find("listed twice"), std::string::npos);
  EXPECT_TRUE(is_sanitizer_tool("racecheck"));
  EXPECT_FALSE(is_sanitizer_tool("asan"));
}

}  // namespace
}  // namespace kgate
