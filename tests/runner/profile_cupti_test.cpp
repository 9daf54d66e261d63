// The CUPTI host side works without a GPU: every metric kgate asks for must
// build into a config image for Hopper (H100/H200) and Ampere (A100), so a
// misspelt or missing metric fails here, not on the GPU runner.
#include <gtest/gtest.h>

#include "runner/profile/cupti_metrics.h"

namespace kgate::profile {
namespace {

void expect_config_builds(const std::string& chip) {
  auto host = CuptiHost::open(chip);
  ASSERT_TRUE(host.ok()) << host.error().message;
  std::vector<MetricSpec> specs = metric_list(chip);
  ASSERT_GT(specs.size(), 30u);
  auto image = host->config_image(metric_names(specs));
  ASSERT_TRUE(image.ok()) << image.error().message;
  EXPECT_GT(image->size(), 0u);
  auto passes = host->passes(*image);
  ASSERT_TRUE(passes.ok()) << passes.error().message;
  EXPECT_GE(*passes, 1u);
  // Kernel replay re-runs the launch once per pass (51 on GH100, 50 on GA100
  // with CUDA 13.0: sm__throughput alone takes 8); keep the list affordable.
  EXPECT_LE(*passes, 64u) << chip;
}

TEST(CuptiMetrics, ConfigImageBuildsForHopper) {
  expect_config_builds("GH100");
}
TEST(CuptiMetrics, ConfigImageBuildsForAmpere) {
  expect_config_builds("GA100");
}

TEST(CuptiMetrics, HopperAddsTheGmmaStall) {
  bool gh = false, ga = false;
  for (const MetricSpec& s : metric_list("GH100")) gh |= s.key == "gmma";
  for (const MetricSpec& s : metric_list("GA100")) ga |= s.key == "gmma";
  EXPECT_TRUE(gh);
  EXPECT_FALSE(ga);
}

TEST(CuptiMetrics, AMisspeltMetricIsNamed) {
  auto host = CuptiHost::open("GH100");
  ASSERT_TRUE(host.ok()) << host.error().message;
  auto image = host->config_image({"dram__bytes.sum", "dram__byts.sum"});
  ASSERT_FALSE(image.ok());
  EXPECT_NE(image.error().message.find("dram__byts.sum"), std::string::npos)
      << image.error().message;
}

TEST(CuptiMetrics, AnUnknownChipIsAnError) {
  auto host = CuptiHost::open("NOT_A_CHIP");
  ASSERT_FALSE(host.ok());
  EXPECT_NE(host.error().message.find("NOT_A_CHIP"), std::string::npos);
}

}  // namespace
}  // namespace kgate::profile
