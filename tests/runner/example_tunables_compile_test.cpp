// The CUDA example kernels compile, without a GPU, for every value of every
// tunable: NVRTC for sm_90 over combinations in which every value occurs with
// the others varied (the GPU test runs every pair of values), and for sm_80
// with every tunable at its default and at its largest value. Each build must fit one block of
// BLOCK threads in the 64K-register file, so every combination can launch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "core/manifest_loader.h"
#include "runner/cuda/cuda_backend.h"
#include "support/test_support.h"
#include "support/tunable_check.h"
#include "support/tunable_combinations.h"

namespace kgate {
namespace {

class ExampleTunablesCompile : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("KGATE_CACHE_DIR", (scratch_.path() / "cache").c_str(), 1);
    auto m = load_manifest(testing::example_dir());
    ASSERT_TRUE(m.ok()) << m.error().message;
    manifest_ = std::move(m.value());
  }
  void TearDown() override { unsetenv("KGATE_CACHE_DIR"); }

  // Compiles `kernel` with each combination for `arch`; returns how many built.
  int compile_all(const std::string& arch, const Kernel& kernel,
                  const std::vector<Variables>& combos) {
    auto backend = make_cuda_backend(arch);
    const Implementation* impl = kernel.implementation("cuda");
    int built = 0;
    for (const Variables& combo : combos) {
      CompileRequest r;
      r.kernel = &kernel;
      r.impl = impl;
      r.root = manifest_.root;
      r.tunables = combo;
      auto outcome = backend->compile(r);
      EXPECT_TRUE(outcome.ok()) << outcome.error().message;
      if (!outcome.ok()) continue;
      EXPECT_TRUE(outcome->ok) << kernel.name << " " << testing::combination_text(combo) << " for "
                               << arch << ":\n"
                               << outcome->digest();
      if (!outcome->ok) continue;
      ++built;
      auto block = combo.find("BLOCK");
      int registers = outcome->program.resources.registers;
      if (block != combo.end() && registers > 0) {
        EXPECT_LE(registers * block->second, 65536)
            << kernel.name << " " << testing::combination_text(combo) << " for " << arch << " uses "
            << registers << " registers per thread: a block cannot launch";
      }
    }
    return built;
  }

  testing::TempDir scratch_;
  Manifest manifest_;
};

TEST_F(ExampleTunablesCompile, EveryValueCompilesForSm90) {
  int kernels = 0;
  for (const Kernel& k : manifest_.kernels) {
    const Implementation* impl = k.implementation("cuda");
    if (!impl) continue;
    ++kernels;
    auto combos = testing::value_rotations(impl->tunables);
    EXPECT_EQ(compile_all("sm_90", k, combos), static_cast<int>(combos.size())) << k.name;
  }
  EXPECT_GE(kernels, 6);
}

TEST_F(ExampleTunablesCompile, DefaultsAndLargestValuesCompileForSm80) {
  for (const Kernel& k : manifest_.kernels) {
    const Implementation* impl = k.implementation("cuda");
    if (!impl) continue;
    Variables largest;
    for (const Tunable& t : impl->tunables)
      largest[t.name] = *std::max_element(t.values.begin(), t.values.end());
    EXPECT_EQ(compile_all("sm_80", k, {Variables{}, largest}), 2) << k.name;
  }
}

// The combination sets themselves: every value of every tunable, and every
// pair of values, occurs.
TEST(TunableCombinations, PairwiseCoversEveryPairAndStartsWithTheDefaults) {
  std::vector<Tunable> t = {{"A", {1, 2, 3, 4}}, {"B", {5, 6, 7}}, {"C", {8, 9, 10, 11, 12}}};
  auto combos = testing::pairwise_combinations(t);
  ASSERT_FALSE(combos.empty());
  EXPECT_EQ(combos[0], (Variables{{"A", 1}, {"B", 5}, {"C", 8}}));
  EXPECT_LT(combos.size(), testing::all_combinations(t).size());
  EXPECT_EQ(testing::all_combinations(t).size(), 60u);
  for (size_t i = 0; i < t.size(); ++i)
    for (size_t j = i + 1; j < t.size(); ++j)
      for (int64_t a : t[i].values)
        for (int64_t b : t[j].values) {
          bool seen = std::any_of(combos.begin(), combos.end(), [&](const Variables& c) {
            return c.at(t[i].name) == a && c.at(t[j].name) == b;
          });
          EXPECT_TRUE(seen) << t[i].name << "=" << a << " with " << t[j].name << "=" << b;
        }
}

TEST(TunableCombinations, RotationsGiveEveryValueWithTheOthersVaried) {
  std::vector<Tunable> t = {{"A", {1, 2, 3, 4}}, {"B", {5, 6, 7}}};
  auto combos = testing::value_rotations(t);
  ASSERT_EQ(combos.size(), 4u);
  EXPECT_EQ(combos[0], (Variables{{"A", 1}, {"B", 5}}));
  for (const Tunable& x : t)
    for (int64_t v : x.values)
      EXPECT_TRUE(std::any_of(combos.begin(), combos.end(),
                              [&](const Variables& c) { return c.at(x.name) == v; }))
          << x.name << "=" << v;
  EXPECT_EQ(combos[1], (Variables{{"A", 2}, {"B", 7}}));
}

}  // namespace
}  // namespace kgate
