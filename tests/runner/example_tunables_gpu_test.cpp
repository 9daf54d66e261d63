// Every manifest tunable value of each CUDA example kernel is correct: the
// kernels are compiled for a set of combinations in which every pair of
// values of two tunables occurs (so every value runs with the others varied;
// KGATE_ALL_COMBINATIONS=1 runs every combination) and checked against the
// host reference on the boundary and misaligned shapes (phase "edge") and on
// the smallest decode shape, each in its own child with fresh inputs and
// poisoned outputs. Skips without a GPU.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/manifest_loader.h"
#include "runner/cuda/cuda_backend.h"
#include "runner/cuda/gpu_inventory.h"
#include "support/test_support.h"
#include "support/tunable_check.h"
#include "support/tunable_combinations.h"

namespace kgate {
namespace {

TEST(ExampleTunablesGpu, EveryTunableValueIsCorrectOnEdgeAndDecodeShapes) {
  auto inventory = cuda::gpu_inventory();
  if (!inventory.ok()) GTEST_SKIP() << inventory.error().message;
  testing::TempDir scratch;
  setenv("KGATE_CACHE_DIR", (scratch.path() / "cache").c_str(), 1);
  setenv("KGATE_LOCK_DIR", (scratch.path() / "locks").c_str(), 1);
  const bool all = std::getenv("KGATE_ALL_COMBINATIONS") != nullptr;
  auto manifest = load_manifest(testing::example_dir());
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  auto backend = make_cuda_backend();
  int kernels = 0, checks = 0;
  for (const Kernel& kernel : manifest->kernels) {
    const Implementation* impl = kernel.implementation("cuda");
    if (!impl) continue;
    ++kernels;
    const std::vector<Variables> combos = all ? testing::all_combinations(impl->tunables)
                                              : testing::pairwise_combinations(impl->tunables);
    const std::vector<const Shape*> shapes = testing::correctness_shapes(kernel, "cuda");
    testing::TunableCheckCount count;
    testing::check_tunable_combinations(*manifest, kernel, *backend, "cuda", combos, shapes,
                                        &count);
    checks += count.checks;
    std::printf("  %-18s %3zu combinations x %zu shapes: %s\n", kernel.name.c_str(), combos.size(),
                shapes.size(), count.failed ? "FAILURES" : "all correct");
  }
  EXPECT_GE(kernels, 6);
  std::printf("  %d kernel checks\n", checks);
}

}  // namespace
}  // namespace kgate
