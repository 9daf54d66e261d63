// `kgate profile` end to end without a GPU: the host backend's degraded
// summary, its JSON, and the errors for bad input and a missing GPU.
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "runner/profile/roofline.h"
#include "runner/profile_model/profile_summary.h"
#include "support/test_support.h"

namespace kgate {
namespace {

using namespace profile_model;  // the data, its classification and text under test

using testing::run_kgate;

TEST(ProfileCli, HostBackendPrintsTheDegradedSummaryAndJson) {
  testing::TempDir dir;
  auto json = dir / "profile.json";
  auto out = run_kgate({"profile", "rmsnorm", "--repo", testing::example_dir().string(),
                        "--backend", "host", "--shape", "decode-b64", "--json", json.string()});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.out.find("### Profile: rmsnorm / decode-b64"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("Missing numbers"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("the host backend runs kernels on the CPU"), std::string::npos);
  EXPECT_NE(out.out.find("kernel time"), std::string::npos) << out.out;  // timing is kept
  EXPECT_LE(count_words(out.out), kMaxSummaryWords);

  auto j = nlohmann::json::parse(testing::read(json));
  ASSERT_EQ(j["profiles"].size(), 1u);
  const auto& p = j["profiles"][0];
  EXPECT_EQ(p["shape"], "decode-b64");
  EXPECT_EQ(p["backend"], "host");
  EXPECT_GT(p["timed_seconds"].get<double>(), 0);
  EXPECT_TRUE(p["missing"].contains("hardware counters"));
  EXPECT_TRUE(p["metrics"].empty());
  EXPECT_EQ(p["summary"].get<std::string>().rfind("### Profile", 0), 0u);
  EXPECT_EQ(ProfileData::from_json(p).bytes_moved, p["bytes_moved"].get<size_t>());
}

TEST(ProfileCli, PhasesPickTheFirstShapeOfEachAndTablePrintsOneRowEach) {
  testing::TempDir dir;
  auto json = dir / "profile.json";
  // softmax's prefill shapes run on cuda only: on the host, decode alone.
  auto out =
      run_kgate({"profile", "softmax", "--repo", testing::example_dir().string(), "--backend",
                 "host", "--phases", "decode", "--table", "--json", json.string()});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_EQ(out.out.rfind("| kernel | shape | class |", 0), 0u) << out.out;
  EXPECT_NE(out.out.find("| softmax | decode-b1 | "), std::string::npos) << out.out;
  EXPECT_EQ(std::count(out.out.begin(), out.out.end(), '\n'), 3) << out.out;
  EXPECT_EQ(out.out.find("### Profile"), std::string::npos) << "--table prints no summaries";
  auto j = nlohmann::json::parse(testing::read(json));
  ASSERT_EQ(j["profiles"].size(), 1u);
  EXPECT_EQ(j["profiles"][0]["shape"], "decode-b1");

  out = run_kgate({"profile", "softmax", "--repo", testing::example_dir().string(), "--backend",
                   "host", "--phases", "prefill"});
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_NE(out.err.find("no \"prefill\" shape that runs on host"), std::string::npos) << out.err;
}

TEST(ProfileCli, AllAndAKernelNameExcludeEachOther) {
  auto out = run_kgate({"profile", "rmsnorm", "--all", "--repo", testing::example_dir().string(),
                        "--backend", "host"});
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_NE(out.err.find("--all"), std::string::npos) << out.err;
  out = run_kgate({"profile", "--repo", testing::example_dir().string(), "--backend", "host"});
  EXPECT_EQ(out.exit_code, 2) << out.err;
}

TEST(ProfileCli, UnknownKernelOrShapeIsBadInput) {
  auto out = run_kgate(
      {"profile", "nope", "--repo", testing::example_dir().string(), "--backend", "host"});
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_NE(out.err.find("no kernel 'nope'"), std::string::npos) << out.err;
  out = run_kgate({"profile", "rmsnorm", "--repo", testing::example_dir().string(), "--backend",
                   "host", "--shape", "nope"});
  EXPECT_EQ(out.exit_code, 2) << out.err;
}

TEST(ProfileCli, CudaWithoutAGpuSaysWhy) {
  auto probe = run_kgate(
      {"profile", "rmsnorm", "--repo", testing::example_dir().string(), "--backend", "cuda"});
  if (probe.exit_code == 0) GTEST_SKIP() << "a GPU is present";
  EXPECT_NE(probe.exit_code, 1);
  EXPECT_FALSE(probe.err.empty());
}

TEST(CeilingStore, StoresPerGpuNameAndSurvivesABrokenFile) {
  testing::TempDir dir;
  profile::CeilingStore store(dir / "state" / "roofline.json");
  EXPECT_FALSE(store.find("NVIDIA H200").has_value());
  ASSERT_TRUE(store.save("NVIDIA H200", {4.1e12, 61e12, "2026-11-30T00:00:00Z"}).ok());
  ASSERT_TRUE(store.save("NVIDIA A100-SXM4-80GB", {1.7e12, 19e12, "2026-11-30T00:00:00Z"}).ok());
  auto h200 = store.find("NVIDIA H200");
  ASSERT_TRUE(h200.has_value());
  EXPECT_DOUBLE_EQ(h200->bandwidth_bytes_per_s, 4.1e12);
  EXPECT_DOUBLE_EQ(store.find("NVIDIA A100-SXM4-80GB")->fp32_flops_per_s, 19e12);
  testing::write(store.file(), "{ not json");
  EXPECT_FALSE(store.find("NVIDIA H200").has_value());
  ASSERT_TRUE(store.save("NVIDIA H200", {4e12, 60e12, "x"}).ok());
  EXPECT_TRUE(store.find("NVIDIA H200").has_value());
}

TEST(Roofline, FmaKernelFlopCount) {
  // 8 chains x 16 unrolled x 4096 iterations x 2 FLOPs per FMA, per thread.
  EXPECT_DOUBLE_EQ(profile::fma_peak_flops(1, 1), 8.0 * 16 * 4096 * 2);
  EXPECT_NE(std::string(profile::kFmaPeakSource).find("kgate_fma_peak"), std::string::npos);
}

}  // namespace
}  // namespace kgate
