// `kgate baseline` and `kgate calibrate` end to end on a small host kernel.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "scale_fixture.h"
#include "support/test_support.h"

namespace kgate::testing {
namespace {

class KernelFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string manifest = kManifest;
    // Few samples: the commands, not the statistics, are under test here.
    manifest.replace(manifest.find("\"reference\""), 0, "\"timing\": {\"samples\": 15},\n    ");
    write(dir / "kgate.json", manifest);
    write(dir / "src/scale.cpp", kKernel);
    write(dir / "src/include/common.h", "#pragma once\n#define PASSES 1\n");
    write(dir / "ref/scale_ref.cpp", kReference);
  }
  TempDir dir;
};

TEST_F(KernelFolder, BaselineRecordAppendsShowsComparesAndFindsNoDrift) {
  std::string store = (dir / "store").string();
  for (const char* revision : {"r1", "r2"}) {
    auto rec = run_kgate({"baseline", "record", dir.path().string(), "--dir", store, "--backend",
                          "host", "--revision", revision});
    ASSERT_EQ(rec.exit_code, 0) << rec.out << rec.err;
    EXPECT_NE(rec.out.find("small"), std::string::npos) << rec.out;
  }
  // One folder per device, one file per kernel, two entries.
  std::filesystem::path file;
  for (const auto& gpu : std::filesystem::directory_iterator(store))
    file = gpu.path() / "scale.json";
  ASSERT_TRUE(std::filesystem::exists(file));
  EXPECT_EQ(file.parent_path().filename().string().rfind("host", 0), 0u) << file;
  nlohmann::json j = nlohmann::json::parse(read(file));
  ASSERT_EQ(j["history"].size(), 2u);
  EXPECT_EQ(j["history"][0]["environment"]["revision"], "r1");
  EXPECT_EQ(j["history"][1]["environment"]["revision"], "r2");
  EXPECT_EQ(j["history"][1]["shapes"][0]["sample_count"], 15);
  EXPECT_EQ(j["history"][1]["environment"]["source_hash"].get<std::string>().size(), 64u);

  auto show = run_kgate({"baseline", "show", dir.path().string(), "--dir", store});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("large"), std::string::npos) << show.out;
  auto drift = run_kgate({"baseline", "drift", "--dir", store});
  EXPECT_EQ(drift.exit_code, 0) << drift.err;
  EXPECT_NE(drift.out.find("0 change points found"), std::string::npos) << drift.out;
  auto compare =
      run_kgate({"baseline", "compare", dir.path().string(), "--dir", store, "--backend", "host"});
  EXPECT_NE(compare.out.find("in band"), std::string::npos) << compare.out << compare.err;

  // A planted drift in the stored history is found by the command. The history is rebuilt from
  // one measured entry with a fixed 1% jitter: the two real entries can differ by far more than
  // that on a loaded machine, which would hide the planted 30% shift in the noise estimate.
  nlohmann::json measured = j["history"][0];
  j["history"] = nlohmann::json::array();
  for (double factor : {1.0, 1.01, 0.99, 1.0, 1.3, 1.31, 1.29, 1.3}) {
    nlohmann::json e = measured;
    for (auto& s : e["shapes"]) s["median_s"] = s["median_s"].get<double>() * factor;
    j["history"].push_back(e);
  }
  write(file, j.dump());
  drift = run_kgate({"baseline", "drift", "--dir", store, "--kernel", "scale"});
  EXPECT_NE(drift.out.find("change point"), std::string::npos) << drift.out;
  EXPECT_EQ(drift.out.find("0 change points"), std::string::npos) << drift.out;
}

TEST_F(KernelFolder, CalibrateReportsFalseAlarmsAndNoiseFloor) {
  auto out =
      run_kgate({"calibrate", dir.path().string(), "--runs", "3", "--budget", "0.1", "--backend",
                 "host", "--shape", "small", "--json", (dir / "cal.json").string()});
  ASSERT_EQ(out.exit_code, 0) << out.out << out.err;
  EXPECT_NE(out.out.find("A/A false alarms:"), std::string::npos) << out.out;
  nlohmann::json j = nlohmann::json::parse(read(dir / "cal.json"));
  const auto& s = j["kernels"][0]["shapes"][0];
  EXPECT_EQ(s["shape"], "small");
  EXPECT_EQ(s["runs"], 3);
  EXPECT_EQ(s["estimates"].size(), 3u);
  EXPECT_GE(s["noise_floor"].get<double>(), 0.0);
}

TEST_F(KernelFolder, BadInputExitsTwo) {
  auto out = run_kgate({"calibrate", dir.path().string(), "--kernel", "nope"});
  EXPECT_EQ(out.exit_code, 2);
  out = run_kgate({"baseline", "frobnicate"});
  EXPECT_EQ(out.exit_code, 2);
  write(dir / "store/host-x/scale.json", "{broken");
  out = run_kgate({"baseline", "show", "--dir", (dir / "store").string(), dir.path().string()});
  EXPECT_EQ(out.exit_code, 2) << out.err;
  EXPECT_NE(out.err.find("scale.json"), std::string::npos) << out.err;
}

}  // namespace
}  // namespace kgate::testing
