// `kgate extract --from-trace`: the task list from a recorded trace of the
// example workload, printed and stored where sweep and optimize read it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace kgate {
namespace {

TEST(ExtractCommand, BuildsAndStoresTheTaskListFromARecordedTrace) {
  testing::TempDir dir;
  auto trace = testing::fixtures_dir() / "workload" / "llama_trace.json";
  auto r = testing::run_kgate({"extract", "--repo", testing::example_dir().string(), "--from-trace",
                               trace.string(), "--json", (dir / "tasks.json").string(),
                               "--state-dir", (dir / "state").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("not in manifest"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("prefill"), std::string::npos);
  auto tasks = nlohmann::json::parse(testing::read(dir / "tasks.json"));
  EXPECT_EQ(tasks, nlohmann::json::parse(testing::read(dir / "state" / "workload" / "tasks.json")));
  EXPECT_GT(tasks["launches"].get<int>(), 0);
}

TEST(ExtractCommand, SaysWhatIsMissing) {
  testing::TempDir dir;
  testing::write(dir / "bad.json", "{\"launches\": 3}");
  auto r =
      testing::run_kgate({"extract", "--repo", testing::example_dir().string(), "--from-trace",
                          (dir / "bad.json").string(), "--state-dir", (dir / "state").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("not a kgate launch trace"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kgate
