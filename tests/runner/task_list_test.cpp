// The task list from a real launch trace of the llm-ops workload, recorded
// on an H200 by `kgate extract` (tests/fixtures/workload/llama_trace.json and
// its README: the weight initialization outside any range, a prefill of 256
// tokens and 4 decode steps through 4 layers, cuBLAS's nvjet_* and
// splitKreduce kernels between the example kernels).
#include "runner/task_list.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "../../examples/llm-ops/workload/launch_dims.h"
#include "core/manifest_loader.h"
#include "support/test_support.h"

namespace kgate {
namespace {

struct TaskListTest : ::testing::Test {
  void SetUp() override {
    auto m = load_manifest(testing::example_dir());
    ASSERT_TRUE(m.ok()) << m.error().message;
    manifest = std::move(m.value());
    auto t = read_launch_trace(testing::fixtures_dir() / "workload" / "llama_trace.json");
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

const char* const kExampleKernels[] = {
    "rmsnorm", "fused_add_rmsnorm", "rotary_embedding", "silu_and_mul", "gemv", "softmax"};

// cuBLAS's kernels in CUDA 13 on sm_90: nvjet_* GEMMs and cublasLt's split-K reduction.
bool is_cublas(const std::string& demangled) {
  return demangled.rfind("nvjet_", 0) == 0 || demangled.find("cublasLt::") != std::string::npos;
}

TEST_F(TaskListTest, FindsEveryExampleKernelInBothPhases) {
  TaskList tasks = build_task_list(trace, manifest);
  // Launches per (phase, manifest kernel) counted here from the raw trace.
  std::map<std::pair<std::string, std::string>, int64_t> expected;
  for (const TracedLaunch& l : trace.launches)
    if (!l.range.empty()) expected[{l.range, match_manifest_kernel(l.name, manifest)}]++;
  for (const char* phase : {"prefill", "decode"}) {
    const PhaseTasks* p = nullptr;
    for (const PhaseTasks& q : tasks.phases)
      if (q.phase == phase) p = &q;
    ASSERT_TRUE(p) << phase;
    for (const char* name : kExampleKernels) {
      int64_t launches = 0;
      for (const TaskKernel& k : p->kernels)
        if (k.kernel == name) launches += k.launches;
      EXPECT_GT(launches, 0) << name << " missing from " << phase;
      EXPECT_EQ(launches, (expected[{phase, name}])) << name << " in " << phase;
    }
    for (size_t i = 1; i < p->kernels.size(); ++i)
      EXPECT_GE(p->kernels[i - 1].total_ns, p->kernels[i].total_ns);
  }
}

TEST_F(TaskListTest, ListsCublasAndTheWorkloadsOwnKernelsAsNotInTheManifest) {
  TaskList tasks = build_task_list(trace, manifest);
  for (const char* phase : {"prefill", "decode"}) {
    int cublas = 0, own = 0;
    double cublas_share = 0;
    for (const PhaseTasks& p : tasks.phases) {
      if (p.phase != phase) continue;
      for (const TaskKernel& k : p.kernels) {
        if (is_cublas(k.name)) {
          EXPECT_EQ(k.kernel, "") << k.name;
          ++cublas, cublas_share += k.share_of_phase;
        }
        if (k.name.find("attention(") != std::string::npos ||
            k.name.find("argmax_sample(") != std::string::npos) {
          EXPECT_EQ(k.kernel, "") << k.name;
          ++own;
        }
      }
    }
    EXPECT_GE(cublas, 2) << phase;
    EXPECT_GT(cublas_share, 0.05) << "the matrix products are a visible part of " << phase;
    EXPECT_EQ(own, 2) << phase;
  }
}

// The trace's grids of the example kernels are what the workload's
// launch_dims.h gives with the default tunables for the workload's sizes
// (Llama-3-8B: intermediate 14336, vocabulary 128256; prefill
// of 256 tokens, decode of 1; the LM head a gemv at batch 1).
TEST_F(TaskListTest, TracedGridsAreTheWorkloadsLaunchDims) {
  const int intermediate = 14336, vocab = 128256;
  auto tunable = [&](const char* kernel, const char* name) {
    return int(manifest.kernel(kernel)->implementation("cuda")->default_tunables().at(name));
  };
  int checked = 0;
  for (const TracedLaunch& l : trace.launches) {
    std::string kernel = match_manifest_kernel(l.name, manifest);
    if (kernel.empty()) continue;
    const int tokens = l.range == "prefill" ? 256 : 1;
    const int block = tunable(kernel.c_str(), "BLOCK");
    launch_dims::Launch want;
    if (kernel == "rmsnorm") want = launch_dims::rmsnorm(tokens, block);
    if (kernel == "fused_add_rmsnorm") want = launch_dims::fused_add_rmsnorm(tokens, block);
    if (kernel == "rotary_embedding") want = launch_dims::rotary_embedding(tokens, block);
    if (kernel == "silu_and_mul")
      want =
          launch_dims::silu_and_mul(tokens, intermediate, block, tunable("silu_and_mul", "ELEMS"),
                                    tunable("silu_and_mul", "VEC"));
    if (kernel == "gemv")
      want = launch_dims::gemv(1, vocab, block, tunable("gemv", "ROWS"),
                               tunable("gemv", "BATCH_TILE"));
    if (kernel == "softmax") want = launch_dims::softmax(1, block);
    std::array<uint32_t, 3> grid{want.grid.x, want.grid.y, want.grid.z};
    std::array<uint32_t, 3> blk{want.block.x, want.block.y, want.block.z};
    EXPECT_EQ(l.grid, grid) << kernel << " in " << l.range;
    EXPECT_EQ(l.block, blk) << kernel << " in " << l.range;
    ++checked;
  }
  // Five forward passes (the prefill, 4 decode steps), each through 4 layers: rmsnorm once,
  // fused_add_rmsnorm twice a layer less the first plus the final norm, rotary_embedding and
  // silu_and_mul once a layer, gemv and softmax once.
  EXPECT_EQ(checked, 5 * (1 + 8 + 4 + 4 + 1 + 1));
}

// Nested ranges (the real trace has none): a launch in "decode/step" or
// "request/prefill/layer0" counts for the declared phase on its path.
TEST_F(TaskListTest, NestedRangesCountForTheirDeclaredPhase) {
  LaunchTrace t;
  auto add = [&](const char* range, uint64_t ns) {
    TracedLaunch l;
    l.name = "softmax";
    l.start_ns = 1000;
    l.end_ns = 1000 + ns;
    l.range = range;
    t.launches.push_back(l);
  };
  add("", 5);
  add("decode", 10);
  add("decode/step", 20);
  add("request/prefill/layer0", 40);
  add("warmup/layer0", 80);
  TaskList tasks = build_task_list(t, manifest);
  std::map<std::string, uint64_t> ns;
  for (const PhaseTasks& p : tasks.phases) ns[p.phase] = p.total_ns;
  EXPECT_EQ(ns, (std::map<std::string, uint64_t>{
                    {kOutsidePhases, 5}, {"decode", 30}, {"prefill", 40}, {"warmup", 80}}));
  EXPECT_EQ(tasks.total_ns, 155u);
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
