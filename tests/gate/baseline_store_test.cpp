// Baseline files round-trip, histories append, drift is found where planted
// (and not where there is only noise), and the gate's report shows head
// against the stored baseline.
#include <gtest/gtest.h>

#include <random>

#include "gate/baseline_store.h"
#include "gate/drift.h"
#include "gate/gate_report.h"
#include "support/test_support.h"

namespace kgate {
namespace {

ShapeMeasurement measured(const std::string& shape, double median_s, uint64_t seed) {
  ShapeMeasurement m;
  m.kernel = "rmsnorm";
  m.shape = shape;
  m.phase = "decode";
  m.status = MeasureStatus::kPass;
  m.device.name = "NVIDIA H200";
  m.device.driver = "570.86";
  m.device.runtime = "CUDA 13.0";
  m.device.arch = "sm_90";
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> noise(0, 0.02);
  for (int i = 0; i < 300; ++i) {
    m.head_seconds.push_back(median_s * noise(rng));
    m.head_clock_mhz.push_back(1980);
  }
  return m;
}

TEST(BaselineStore, SlugsAndPaths) {
  EXPECT_EQ(gpu_slug("NVIDIA H200"), "nvidia-h200");
  EXPECT_EQ(gpu_slug("host: Intel(R) Xeon(R) CPU @ 2.20GHz"), "host-intel-r-xeon-r-cpu-2-20ghz");
  EXPECT_EQ(gpu_slug(""), "unknown");
  EXPECT_EQ(baseline_path("baselines", "NVIDIA H200", "rmsnorm"),
            std::filesystem::path("baselines/nvidia-h200/rmsnorm.json"));
}

TEST(BaselineStore, RoundTripsAndAppends) {
  testing::TempDir dir;
  auto path = baseline_path(dir.path(), "NVIDIA H200", "rmsnorm");
  BaselineEntry first = baseline_entry(
      {measured("decode-b1", 20e-6, 1), measured("prefill", 400e-6, 2)}, "abc123", "v1");
  auto saved = append_baseline(path, "rmsnorm", first);
  ASSERT_TRUE(saved.ok()) << saved.error().message;
  auto loaded = load_baseline(path);
  ASSERT_TRUE(loaded.ok() && *loaded);
  const BaselineFile& file = **loaded;
  EXPECT_EQ(file.kernel, "rmsnorm");
  EXPECT_EQ(file.gpu, "NVIDIA H200");
  ASSERT_EQ(file.history.size(), 1u);
  const BaselineEntry& e = file.history[0];
  EXPECT_EQ(e.environment.driver, "570.86");
  EXPECT_EQ(e.environment.cuda, "CUDA 13.0");
  EXPECT_EQ(e.environment.source_hash, "abc123");
  EXPECT_EQ(e.environment.revision, "v1");
  EXPECT_DOUBLE_EQ(e.environment.sm_clock_mhz, 1980);
  EXPECT_FALSE(e.environment.date.empty());
  EXPECT_FALSE(e.environment.kgate_version.empty());
  const BaselineShape* s = e.shape("decode-b1");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->sample_count, 300);
  EXPECT_EQ(s->samples.size(), BaselineShape::kMaxKeptSamples);
  EXPECT_NEAR(s->median_s, 20e-6, 0.5e-6);
  EXPECT_LT(s->p10_s, s->p25_s);
  EXPECT_LT(s->p75_s, s->p90_s);
  EXPECT_EQ(file.to_json(), BaselineFile::from_json(file.to_json())->to_json());

  ASSERT_TRUE(append_baseline(path, "rmsnorm",
                              baseline_entry({measured("decode-b1", 21e-6, 3)}, "def", "v2"))
                  .ok());
  auto again = load_baseline(path);
  ASSERT_EQ((*again)->history.size(), 2u);
  EXPECT_EQ((*again)->latest()->environment.revision, "v2");
  EXPECT_EQ((*again)->history[0].environment.revision, "v1");  // history kept, not overwritten

  auto other = append_baseline(path, "softmax", first);
  EXPECT_FALSE(other.ok());  // a file holds one kernel
}

TEST(BaselineStore, BrokenFilesAreClearErrors) {
  testing::TempDir dir;
  testing::write(dir / "x.json", "{not json");
  auto bad = load_baseline(dir / "x.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("x.json"), std::string::npos);
  testing::write(dir / "y.json", R"({"format": "something-else"})");
  EXPECT_FALSE(load_baseline(dir / "y.json").ok());
  auto missing = load_baseline(dir / "none.json");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(*missing);
}

TEST(Drift, FindsAPlantedLevelShift) {
  std::mt19937_64 rng(5);
  std::lognormal_distribution<double> noise(0, 0.01);
  std::vector<double> series;
  for (int i = 0; i < 30; ++i) series.push_back(20e-6 * noise(rng));
  for (int i = 0; i < 20; ++i)
    series.push_back(21.6e-6 * noise(rng));  // +8% from entry 30 (a driver update)
  auto points = find_change_points(series);
  ASSERT_EQ(points.size(), 1u);
  EXPECT_NEAR(points[0].index, 30, 1);
  EXPECT_NEAR(points[0].ratio, 1.08, 0.02);
}

TEST(Drift, FindsTwoShiftsAndIgnoresNoiseAndOneOutlier) {
  std::mt19937_64 rng(9);
  std::lognormal_distribution<double> noise(0, 0.01);
  std::vector<double> flat;
  for (int i = 0; i < 60; ++i) flat.push_back(20e-6 * noise(rng));
  flat[25] *= 1.5;  // one bad night is not a drift
  EXPECT_TRUE(find_change_points(flat).empty());
  std::vector<double> two;
  for (int i = 0; i < 20; ++i) two.push_back(20e-6 * noise(rng));
  for (int i = 0; i < 20; ++i) two.push_back(23e-6 * noise(rng));
  for (int i = 0; i < 20; ++i) two.push_back(19e-6 * noise(rng));
  auto points = find_change_points(two);
  ASSERT_EQ(points.size(), 2u);
  EXPECT_NEAR(points[0].index, 20, 1);
  EXPECT_NEAR(points[1].index, 40, 1);
  EXPECT_TRUE(find_change_points({1.0, 1.0}).empty());
}

TEST(Baseline, GateReportShowsHeadAgainstStoredBaseline) {
  BaselineEntry entry = baseline_entry({measured("decode-b1", 20e-6, 1)}, "h", "r");
  KernelGate gate;
  gate.kernel = "rmsnorm";
  gate.head_compiled = true;
  ShapeGate s;
  s.shape = "decode-b1";
  s.phase = "decode";
  s.verdict = Verdict::kSame;
  s.head_median_s = 22e-6;
  s.base_median_s = 22e-6;
  s.interval = paired_ratio_interval({1, 1, 1}, {1, 1, 1}, 0.5);
  gate.shapes.push_back(s);
  attach_baseline(gate, entry);
  ASSERT_TRUE(gate.shapes[0].baseline);
  EXPECT_NEAR(gate.shapes[0].baseline->ratio, 1.10, 0.02);
  EXPECT_FALSE(gate.shapes[0].baseline->within_band);
  GateReport report;
  report.kernels.push_back(gate);
  EXPECT_NE(render_markdown(report).find("(stored 19.99 us, +10.1%)"), std::string::npos)
      << render_markdown(report);
  // The report survives JSON.
  GateReport back = GateReport::from_json(nlohmann::json::parse(report.to_json().dump()));
  ASSERT_TRUE(back.kernels[0].shapes[0].baseline);
  EXPECT_EQ(back.to_json(), report.to_json());
}

}  // namespace
}  // namespace kgate
