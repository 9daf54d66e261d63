// What the service sends to GitHub names no path of its machine: the text
// filter on its own, and the gate's check run as the local forge records it.
#include "webhooks/public_text.h"

#include <gtest/gtest.h>

#include "bot/local_forge.h"
#include "core/file_util.h"
#include "support/test_support.h"
#include "webhooks/gate_check_publisher.h"
#include "webhooks/job_executor.h"

namespace kgate::webhooks {
namespace {

TEST(PublicText, AbsolutePathsKeepOnlyTheirLastComponent) {
  EXPECT_EQ(without_local_paths("cannot read /var/lib/kgate/state/jobs/1/result.json"),
            "cannot read .../result.json");
  EXPECT_EQ(without_local_paths("/usr/local/bin/kgate gate exited 3"), ".../kgate gate exited 3");
  EXPECT_EQ(without_local_paths("error at '/srv/repo/csrc/a.cu:12:3': no member"),
            "error at '.../a.cu:12:3': no member");
  EXPECT_EQ(without_local_paths("in (/tmp/kgate-x/build/) and `/home/ci/.cache/kgate`."),
            "in (.../build/) and `.../kgate`.");
  EXPECT_EQ(without_local_paths("see /var/log/kgate.log."), "see .../kgate.log.");
}

TEST(PublicText, LeavesWhatIsNotAPathOfThisMachine) {
  for (const char* text :
       {"comment `/kgate approve` or `/kgate rerun`", "https://github.com/o/r/pull/2",
        "csrc/rmsnorm.cu: 2 shapes slower (-8.1%)", "1/3 shapes; and/or", "</details>", "a / b",
        "kgate/optimize/rmsnorm", "//cdn.example/x"})
    EXPECT_EQ(without_local_paths(text), text);
}

class GateCheckPublisherTest : public ::testing::Test {
 protected:
  GateCheckPublisher publisher{[this](const std::string&) -> Result<std::unique_ptr<bot::Forge>> {
    return std::unique_ptr<bot::Forge>(
        std::make_unique<bot::LocalForge>(dir.path() / "repo", dir.path() / "forge"));
  }};
  // What the forge recorded for the check run `id`.
  nlohmann::json recorded(const std::string& id) {
    auto text = read_file(dir.path() / "forge" / "checks" / (id + ".json"));
    EXPECT_TRUE(text.ok());
    return text.ok() ? nlohmann::json::parse(*text) : nlohmann::json();
  }
  JobSpec spec{.kind = JobKind::kGate,
               .repository = "o/r",
               .pull_number = 2,
               .base = std::string(40, 'b'),
               .head = std::string(40, 'a')};
  kgate::testing::TempDir dir;
};

TEST_F(GateCheckPublisherTest, AMissingReportIsSaidWithoutTheStatePath) {
  std::string id = publisher.start(spec);
  ASSERT_FALSE(id.empty());
  auto state = dir.path() / "state";
  JobResult finished{.ok = true, .outcome = "passed"};
  ASSERT_TRUE(publisher.finish(spec, id, finished, state / "jobs" / "1" / "result.json").ok());
  nlohmann::json run = recorded(id);
  std::string text = run.dump();
  EXPECT_EQ(run["conclusion"], "neutral");
  EXPECT_NE(text.find("the job wrote none"), std::string::npos) << text;
  EXPECT_EQ(text.find(dir.path().string()), std::string::npos) << text;
  EXPECT_EQ(text.find("/jobs/1"), std::string::npos) << text;
}

TEST_F(GateCheckPublisherTest, AFailedJobsReasonLosesItsPaths) {
  std::string id = publisher.start(spec);
  ASSERT_FALSE(id.empty());
  auto state = dir.path() / "state";
  JobResult failed{.ok = false,
                   .outcome = "/usr/local/bin/kgate exited 3: cannot open " +
                              (state / "jobs" / "1" / "tmp" / "x.cu").string()};
  ASSERT_TRUE(publisher.finish(spec, id, failed, state / "jobs" / "1" / "result.json").ok());
  std::string summary = recorded(id)["summary"];
  EXPECT_EQ(summary.find(state.string()), std::string::npos) << summary;
  EXPECT_EQ(summary.find("/usr/local"), std::string::npos) << summary;
  EXPECT_NE(summary.find(".../kgate exited 3: cannot open .../x.cu"), std::string::npos) << summary;
}

}  // namespace
}  // namespace kgate::webhooks
