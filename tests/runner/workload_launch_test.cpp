// The example workload launches each example kernel with the grid and block
// the manifest declares: examples/llm-ops/workload/launch_dims.h (the
// workload's only source of launch dimensions) against runner's plan_launch
// on kgate.json, for every combination of the kernel's tunables and every
// shape the cuda backend runs. Twice the workload's grids drifted from the
// manifest by hand (silu_and_mul's VEC, gemv's ROWS/BATCH_TILE); a candidate
// validated in the workload then ran with a different launch than the one
// kgate measured.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>

#include "../../examples/llm-ops/workload/launch_dims.h"
#include "core/manifest_loader.h"
#include "runner/launch_plan.h"
#include "support/test_support.h"
#include "support/tunable_check.h"
#include "support/tunable_combinations.h"

namespace kgate {
namespace {

// What the workload's launcher of a kernel computes, from the shape's
// variables and the tunables (the macros the kernel source defines).
using WorkloadLaunch = std::function<launch_dims::Launch(const Variables& shape, const Variables&)>;

int v(const Variables& vars, const char* name) {
  return int(vars.at(name));
}

// One entry per kernel the workload launches; a kernel_<name>.cu without an
// entry fails WorkloadLaunchersAreAllChecked.
const std::map<std::string, WorkloadLaunch>& workload_launches() {
  static const std::map<std::string, WorkloadLaunch> launches = {
      {"rmsnorm",
       [](const Variables& s, const Variables& t) {
         return launch_dims::rmsnorm(v(s, "rows"), v(t, "BLOCK"));
       }},
      {"fused_add_rmsnorm",
       [](const Variables& s, const Variables& t) {
         return launch_dims::fused_add_rmsnorm(v(s, "rows"), v(t, "BLOCK"));
       }},
      {"rotary_embedding",
       [](const Variables& s, const Variables& t) {
         return launch_dims::rotary_embedding(v(s, "tokens"), v(t, "BLOCK"));
       }},
      {"silu_and_mul",
       [](const Variables& s, const Variables& t) {
         return launch_dims::silu_and_mul(v(s, "rows"), v(s, "d"), v(t, "BLOCK"), v(t, "ELEMS"),
                                          v(t, "VEC"));
       }},
      {"gemv",
       [](const Variables& s, const Variables& t) {
         return launch_dims::gemv(v(s, "batch"), v(s, "n"), v(t, "BLOCK"), v(t, "ROWS"),
                                  v(t, "BATCH_TILE"));
       }},
      {"softmax",
       [](const Variables& s, const Variables& t) {
         return launch_dims::softmax(v(s, "rows"), v(t, "BLOCK"));
       }},
  };
  return launches;
}

std::string dims_text(const uint32_t* d) {
  return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
}

struct Comparison {
  int compared = 0;
  std::vector<std::string> mismatches;  // the first few, for the failure message
  int mismatch_count = 0;
};

// Every tunable combination times every cuda shape of `kernel`.
Comparison compare_with_manifest(const Kernel& kernel, const WorkloadLaunch& launch) {
  Comparison c;
  const Implementation* impl = kernel.implementation("cuda");
  if (!impl) {
    c.mismatches.push_back(kernel.name + " has no cuda implementation");
    ++c.mismatch_count;
    return c;
  }
  for (const Variables& tunables : testing::all_combinations(impl->tunables)) {
    for (const Shape& shape : kernel.shapes) {
      if (!shape.runs_on("cuda")) continue;
      auto plan = plan_launch(kernel, impl, shape, tunables);
      std::string where =
          kernel.name + "/" + shape.name + " " + testing::combination_text(tunables);
      if (!plan.ok()) {
        ++c.mismatch_count;
        if (c.mismatches.size() < 5) c.mismatches.push_back(where + ": " + plan.error().message);
        continue;
      }
      const launch_dims::Launch w = launch(shape.variables, tunables);
      const uint32_t wgrid[3] = {w.grid.x, w.grid.y, w.grid.z};
      const uint32_t wblock[3] = {w.block.x, w.block.y, w.block.z};
      const LaunchDims& m = plan->dims;
      ++c.compared;
      if (!std::equal(wgrid, wgrid + 3, m.grid) || !std::equal(wblock, wblock + 3, m.block) ||
          w.shared_bytes != m.shared_bytes) {
        ++c.mismatch_count;
        if (c.mismatches.size() < 5)
          c.mismatches.push_back(where + ": workload grid " + dims_text(wgrid) + " block " +
                                 dims_text(wblock) + " shared " + std::to_string(w.shared_bytes) +
                                 ", manifest grid " + dims_text(m.grid) + " block " +
                                 dims_text(m.block) + " shared " + std::to_string(m.shared_bytes));
      }
    }
  }
  return c;
}

std::string join(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines) s += "\n  " + l;
  return s;
}

std::filesystem::path workload_dir() {
  return testing::example_dir() / "workload";
}

// Kernels the workload launches: one kernel_<name>.cu per example kernel.
std::set<std::string> launched_kernels() {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(workload_dir())) {
    std::string file = entry.path().filename().string();
    if (file.rfind("kernel_", 0) == 0 && entry.path().extension() == ".cu")
      names.insert(file.substr(7, file.size() - 7 - 3));
  }
  return names;
}

struct WorkloadLaunchTest : ::testing::Test {
  void SetUp() override {
    auto m = load_manifest(testing::example_dir());
    ASSERT_TRUE(m.ok()) << m.error().message;
    manifest = std::move(m.value());
  }
  Manifest manifest;
};

TEST_F(WorkloadLaunchTest, WorkloadLaunchersAreAllChecked) {
  std::set<std::string> launched = launched_kernels();
  ASSERT_EQ(launched.size(), workload_launches().size());
  // Each launcher takes its dimensions from launch_dims.h and nothing else:
  // every launch in the file uses the Launch it got from launch_dims::<name>.
  const std::regex any_launch(R"(<<<)");
  const std::regex checked_launch(
      R"(<<<\s*grid_of\(l\),\s*block_of\(l\),\s*l\.shared_bytes,\s*stream\s*>>>)");
  for (const std::string& name : launched) {
    EXPECT_TRUE(manifest.kernel(name)) << "kernel_" << name << ".cu launches no manifest kernel";
    EXPECT_TRUE(workload_launches().count(name))
        << "kernel_" << name << ".cu: add its launch_dims function to this test";
    std::string text = testing::read(workload_dir() / ("kernel_" + name + ".cu"));
    EXPECT_NE(text.find("launch_dims::" + name + "("), std::string::npos) << name;
    auto launches = std::distance(std::sregex_iterator(text.begin(), text.end(), any_launch),
                                  std::sregex_iterator());
    auto checked = std::distance(std::sregex_iterator(text.begin(), text.end(), checked_launch),
                                 std::sregex_iterator());
    EXPECT_EQ(launches, 1) << name;
    EXPECT_EQ(checked, launches) << "kernel_" << name
                                 << ".cu launches with dimensions not from launch_dims.h";
  }
}

TEST_F(WorkloadLaunchTest, GridsAndBlocksMatchTheManifestForEveryTunableAndShape) {
  int total = 0;
  for (const auto& [name, launch] : workload_launches()) {
    const Kernel* kernel = manifest.kernel(name);
    ASSERT_TRUE(kernel) << name;
    Comparison c = compare_with_manifest(*kernel, launch);
    EXPECT_EQ(c.mismatch_count, 0) << c.mismatch_count << " of " << c.compared
                                   << " launches differ, e.g.:" << join(c.mismatches);
    // Every combination of every tunable, on every cuda shape.
    size_t combos = testing::all_combinations(kernel->implementation("cuda")->tunables).size();
    size_t shapes = 0;
    for (const Shape& s : kernel->shapes) shapes += s.runs_on("cuda");
    EXPECT_EQ(size_t(c.compared), combos * shapes) << name;
    total += c.compared;
  }
  EXPECT_GT(total, 10000);  // gemv alone: 1280 combinations x 8 shapes
}

// The comparison catches the drift that happened by hand: a manifest grid
// that leaves out VEC while the workload divides by it.
TEST_F(WorkloadLaunchTest, ADriftedManifestLaunchIsCaught) {
  testing::TempDir dir;
  std::filesystem::copy(testing::example_dir(), dir.path(),
                        std::filesystem::copy_options::recursive);
  std::string text = testing::read(dir / "kgate.json");
  const std::string grid = "ceil_div(d, BLOCK * ELEMS * VEC)";
  auto at = text.find(grid);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, grid.size(), "ceil_div(d, BLOCK * ELEMS)");
  testing::write(dir / "kgate.json", text);
  auto drifted = load_manifest(dir.path());
  ASSERT_TRUE(drifted.ok()) << drifted.error().message;
  Comparison c = compare_with_manifest(*drifted->kernel("silu_and_mul"),
                                       workload_launches().at("silu_and_mul"));
  EXPECT_GT(c.mismatch_count, 0);
  ASSERT_FALSE(c.mismatches.empty());
  EXPECT_NE(c.mismatches[0].find("silu_and_mul/"), std::string::npos) << c.mismatches[0];
  // VEC = 1 leaves both formulas equal: only the other combinations differ.
  EXPECT_LT(c.mismatch_count, c.compared);
}

}  // namespace
}  // namespace kgate
