// The task list from a recorded launch trace of the llm-ops workload
// (tests/fixtures/workload/llama_trace.json: prefill of 256 tokens and three
// decode steps through two layers, one step inside a nested "decode/step"
// range, and the weight initialization outside any range).
#include "runner/task_list.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/manifest_loader.h"
#include "support/test_support.h"

namespace kgate {
namespace {

struct TaskListTest : ::testing::Test {
  void SetUp() override {
    auto m = load_manifest(testing::example_dir());
    ASSERT_TRUE(m.ok()) << m.error().message;
    manifest = std::move(m.value());
    auto t = read_launch_trace(std::filesystem::path(KGATE_TEST_FIXTURES) / "workload" /
                               "llama_trace.json");
    ASSERT_TRUE(t.ok()) << t.error().message;
    trace = std::move(t.value());
  }
  Manifest manifest;
  LaunchTrace trace;
};

TEST_F(TaskListTest, PhasesComeFromTheOutermostDeclaredRange) {
  std::vector<std::string> phases = {"prefill", "decode"};
  EXPECT_EQ(phase_of("decode", phases), "decode");
  EXPECT_EQ(phase_of("decode/step", phases), "decode");
  EXPECT_EQ(phase_of("request/prefill/layer0", phases), "prefill");
  EXPECT_EQ(phase_of("warmup/layer0", phases), "warmup");
  EXPECT_EQ(phase_of("", phases), kOutsidePhases);
}

TEST_F(TaskListTest, MatchesManifestKernelsByEntryName) {
  EXPECT_EQ(match_manifest_kernel("rmsnorm", manifest), "rmsnorm");
  EXPECT_EQ(match_manifest_kernel("fused_add_rmsnorm", manifest), "fused_add_rmsnorm");
  // A C++ kernel named like an entry matches through its demangled name.
  EXPECT_EQ(match_manifest_kernel("_Z4gemvP6__halfPKS_S2_iii", manifest), "gemv");
  EXPECT_EQ(match_manifest_kernel("gemvx", manifest), "");
  EXPECT_EQ(match_manifest_kernel("_ZN12_GLOBAL__N_19attentionEP6__halfPKS0_S3_S3_iiiif", manifest),
            "");
}

TEST_F(TaskListTest, SharesAddUpToTheTracedTotal) {
  TaskList tasks = build_task_list(trace, manifest);
  uint64_t traced = 0;
  for (const TracedLaunch& l : trace.launches) traced += l.duration_ns();
  EXPECT_EQ(tasks.total_ns, traced);
  EXPECT_EQ(tasks.launches, int64_t(trace.launches.size()));
  double phase_shares = 0;
  uint64_t phase_ns = 0;
  for (const PhaseTasks& p : tasks.phases) {
    phase_shares += p.share;
    phase_ns += p.total_ns;
    double in_phase = 0;
    uint64_t kernel_ns = 0;
    for (const TaskKernel& k : p.kernels) in_phase += k.share_of_phase, kernel_ns += k.total_ns;
    EXPECT_NEAR(in_phase, 1.0, 1e-9) << p.phase;
    EXPECT_EQ(kernel_ns, p.total_ns) << p.phase;
  }
  EXPECT_NEAR(phase_shares, 1.0, 1e-9);
  EXPECT_EQ(phase_ns, traced);
  double overall = 0;
  for (const TaskKernel& k : tasks.kernels) overall += k.share_of_total;
  EXPECT_NEAR(overall, 1.0, 1e-9);
}

TEST_F(TaskListTest, AttributesEveryLaunchToItsPhase) {
  TaskList tasks = build_task_list(trace, manifest);
  std::map<std::string, int64_t> expected;  // counted here from the raw ranges
  for (const TracedLaunch& l : trace.launches)
    expected[l.range.empty() ? kOutsidePhases : l.range.substr(0, l.range.find('/'))]++;
  std::map<std::string, int64_t> got;
  for (const PhaseTasks& p : tasks.phases)
    for (const TaskKernel& k : p.kernels) got[p.phase] += k.launches;
  EXPECT_EQ(got, expected);
  ASSERT_GE(tasks.phases.size(), 3u);
  EXPECT_EQ(tasks.phases[0].phase, kOutsidePhases);  // order of first appearance
  EXPECT_EQ(tasks.phases[1].phase, "prefill");
  EXPECT_EQ(tasks.phases[2].phase, "decode");
}

TEST_F(TaskListTest, ListsManifestKernelsInBothPhasesAndOthersAsNotInTheManifest) {
  TaskList tasks = build_task_list(trace, manifest);
  for (const PhaseTasks& p : tasks.phases) {
    if (p.phase == kOutsidePhases) continue;
    std::set<std::string> found;
    bool unmatched_hot = false;
    for (const TaskKernel& k : p.kernels) {
      if (!k.kernel.empty()) found.insert(k.kernel);
      unmatched_hot |= k.kernel.empty() && k.share_of_phase > 0.05;
    }
    for (const char* name :
         {"fused_add_rmsnorm", "rotary_embedding", "silu_and_mul", "gemv", "softmax", "rmsnorm"})
      EXPECT_TRUE(found.count(name)) << name << " missing from " << p.phase;
    EXPECT_TRUE(unmatched_hot) << "cuBLAS should be listed in " << p.phase;
    for (size_t i = 1; i < p.kernels.size(); ++i)
      EXPECT_GE(p.kernels[i - 1].total_ns, p.kernels[i].total_ns);
  }
}

TEST_F(TaskListTest, TypicalLaunchIsTheMostFrequent) {
  LaunchTrace t;
  auto add = [&](uint32_t grid, uint64_t ns) {
    TracedLaunch l;
    l.name = "rmsnorm";
    l.start_ns = 100;
    l.end_ns = 100 + ns;
    l.grid = {grid, 1, 1};
    l.block = {256, 1, 1};
    l.range = "decode";
    t.launches.push_back(l);
  };
  add(64, 1000);
  add(1, 10);
  add(1, 10);
  TaskList tasks = build_task_list(t, manifest);
  ASSERT_EQ(tasks.phases.size(), 1u);
  ASSERT_EQ(tasks.phases[0].kernels.size(), 1u);
  const TaskKernel& k = tasks.phases[0].kernels[0];
  EXPECT_EQ(k.grid[0], 1u);
  EXPECT_EQ(k.configs, 2);
  EXPECT_EQ(k.launches, 3);
  EXPECT_EQ(k.total_ns, 1020u);
}

TEST_F(TaskListTest, RoundTripsThroughJson) {
  TaskList tasks = build_task_list(trace, manifest);
  auto back = TaskList::from_json(nlohmann::json::parse(tasks.to_json().dump()));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->to_json(), tasks.to_json());
  EXPECT_NEAR(back->kernel_share("gemv"), tasks.kernel_share("gemv"), 1e-12);
  EXPECT_GT(tasks.kernel_share("gemv"), 0);
  EXPECT_FALSE(render_task_list(tasks).empty());
}

TEST_F(TaskListTest, RejectsATruncatedTrace) {
  testing::TempDir dir;
  testing::write(dir / "t.json", "{\"version\": 1, \"launches\": [{\"name\": \"x\"");
  auto t = read_launch_trace(dir / "t.json");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("not valid JSON"), std::string::npos);
  auto bad = parse_launch_trace(nlohmann::json::parse(R"({"launches": [{"name": "x"}]})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("launches[0]"), std::string::npos);
}

}  // namespace
}  // namespace kgate
