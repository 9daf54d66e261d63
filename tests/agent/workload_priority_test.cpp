// Sweep order and episode focus from a task list built on the recorded
// workload trace (tests/fixtures/workload/llama_trace.json).
#include "agent/workload_priority.h"

#include <gtest/gtest.h>

#include "core/file_util.h"
#include "core/manifest_loader.h"
#include "support/test_support.h"

namespace kgate {
namespace {

struct WorkloadPriorityTest : ::testing::Test {
  void SetUp() override {
    auto m = load_manifest(testing::example_dir());
    ASSERT_TRUE(m.ok()) << m.error().message;
    manifest = std::move(m.value());
    auto t = read_launch_trace(testing::fixtures_dir() / "workload" / "llama_trace.json");
    ASSERT_TRUE(t.ok()) << t.error().message;
    tasks = build_task_list(*t, manifest);
  }
  Manifest manifest;
  TaskList tasks;
};

TEST_F(WorkloadPriorityTest, OrdersKernelsByTheirShareOfGpuTime) {
  auto order = order_by_workload(manifest, &tasks);
  ASSERT_EQ(order.size(), manifest.kernels.size());
  for (size_t i = 1; i < order.size(); ++i)
    EXPECT_GE(tasks.kernel_share(order[i - 1]->name), tasks.kernel_share(order[i]->name))
        << order[i - 1]->name << " before " << order[i]->name;
  EXPECT_NE(order.front()->name, manifest.kernels.front().name)
      << "the fixture's hottest kernel is not the manifest's first";
  // Without a task list: manifest order.
  auto plain = order_by_workload(manifest, nullptr);
  for (size_t i = 0; i < plain.size(); ++i) EXPECT_EQ(plain[i], &manifest.kernels[i]);
}

TEST_F(WorkloadPriorityTest, FocusNamesTheHottestPhaseAndItsShapes) {
  const Kernel& gemv = *manifest.kernel("gemv");
  std::string focus = workload_focus(tasks, gemv);
  ASSERT_FALSE(focus.empty());
  std::string hottest;
  double best = 0;
  for (const PhaseTasks& p : tasks.phases)
    for (const TaskKernel& k : p.kernels)
      if (k.kernel == "gemv" && k.share_of_total > best) best = k.share_of_total, hottest = p.phase;
  EXPECT_NE(focus.find("The phase that matters most is " + hottest), std::string::npos) << focus;
  for (const Shape& s : gemv.shapes) {
    if (s.phase == hottest) {
      EXPECT_NE(focus.find(s.name), std::string::npos) << s.name;
    }
  }
  EXPECT_NE(focus.find("launches"), std::string::npos);
}

TEST_F(WorkloadPriorityTest, SweepReadsTheStoredTaskList) {
  testing::TempDir state;
  std::string note;
  auto plain = sweep_order(manifest, state.path(), &note);
  EXPECT_NE(note.find("run `kgate extract`"), std::string::npos) << note;
  EXPECT_EQ(plain.front(), &manifest.kernels.front());
  std::filesystem::create_directories(task_list_path(state.path()).parent_path());
  ASSERT_TRUE(write_file_atomic(task_list_path(state.path()), tasks.to_json().dump()).ok());
  std::optional<TaskList> read;
  auto hot = sweep_order(manifest, state.path(), &note, &read);
  EXPECT_EQ(hot, order_by_workload(manifest, &tasks));
  ASSERT_TRUE(read.has_value());  // handed back, so the sweep reads the file once
  EXPECT_EQ(read->kernel_share("gemv"), tasks.kernel_share("gemv"));
  EXPECT_NE(note.find("hottest first"), std::string::npos) << note;
  testing::write(task_list_path(state.path()), "{broken");
  auto broken = sweep_order(manifest, state.path(), &note);
  EXPECT_NE(note.find("not valid JSON"), std::string::npos) << note;
}

}  // namespace
}  // namespace kgate

namespace kgate {
namespace {

TEST_F(WorkloadPriorityTest, SweepBudgetFollowsGpuTimeAndGivesEveryKernelALook) {
  auto order = order_by_workload(manifest, &tasks);
  auto budgets = split_sweep_budget(order, &tasks, 600);
  ASSERT_EQ(budgets.size(), order.size());
  double sum = 0;
  for (double b : budgets) sum += b;
  EXPECT_NEAR(sum, 600, 1e-9);
  const double floor = 0.5 * 600 / order.size();
  for (size_t i = 0; i < order.size(); ++i) {
    EXPECT_GE(budgets[i], floor - 1e-9) << order[i]->name;
    if (i > 0) {
      EXPECT_GE(budgets[i - 1], budgets[i]) << order[i - 1]->name;  // hottest first
    }
  }
  // The hottest kernel (gemv in the recorded decode) gets the most, well above an equal part.
  EXPECT_GT(budgets.front(), 1.5 * 600 / order.size());
  // Without a task list: equal parts.
  for (double b : split_sweep_budget(order, nullptr, 600))
    EXPECT_NEAR(b, 600.0 / order.size(), 1e-9);
  EXPECT_TRUE(split_sweep_budget({}, &tasks, 600).empty());
}

TEST_F(WorkloadPriorityTest, NextSweepBudgetSplitsWhatIsLeft) {
  auto order = order_by_workload(manifest, &tasks);
  ASSERT_GE(order.size(), 3u);
  const auto planned = split_sweep_budget(order, &tasks, 600);
  // At the start: the first kernel's planned budget.
  EXPECT_NEAR(next_sweep_budget(order, &tasks, 600), planned[0], 1e-9);
  // The first episode ran 100 s over its budget: the second kernel's budget is
  // split from what is left, so it and the later ones pay for the overrun ...
  std::vector<const Kernel*> rest(order.begin() + 1, order.end());
  const double left = 600 - (planned[0] + 100);
  const double second = next_sweep_budget(rest, &tasks, left);
  EXPECT_LT(second, planned[1]);
  EXPECT_NEAR(second, split_sweep_budget(rest, &tasks, left)[0], 1e-9);
  // ... and one that stopped early leaves the later ones its time.
  EXPECT_GT(next_sweep_budget(rest, &tasks, 600 - planned[0] / 2), planned[1]);
  // Nothing left, or nobody left: no budget.
  EXPECT_EQ(next_sweep_budget(rest, &tasks, 0), 0);
  EXPECT_EQ(next_sweep_budget(rest, &tasks, -5), 0);
  EXPECT_EQ(next_sweep_budget({}, &tasks, 600), 0);
}

}  // namespace
}  // namespace kgate
