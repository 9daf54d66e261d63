// Every host tunable value of each example kernel is correct on the CPU: the
// kernels are built for combinations in which every pair of values of two
// tunables occurs (with two tunables, every combination), and checked against
// the reference on the edge shapes (tails of the 8-wide conversions, rows
// shorter than the VEC path takes) and the smallest decode shape, each in its
// own child with fresh inputs and poisoned outputs.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/manifest_loader.h"
#include "runner/host/host_backend.h"
#include "support/test_support.h"
#include "support/tunable_check.h"
#include "support/tunable_combinations.h"

namespace kgate {
namespace {

TEST(ExampleHostTunables, EveryTunableValueIsCorrectOnEdgeAndDecodeShapes) {
  testing::TempDir scratch;
  setenv("KGATE_CACHE_DIR", (scratch.path() / "cache").c_str(), 1);
  auto manifest = load_manifest(testing::example_dir());
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  auto backend = make_host_backend();
  int kernels = 0;
  testing::TunableCheckCount count;
  for (const Kernel& kernel : manifest->kernels) {
    const Implementation* impl = kernel.implementation("host");
    if (!impl) continue;
    ++kernels;
    testing::check_tunable_combinations(*manifest, kernel, *backend, "host",
                                        testing::pairwise_combinations(impl->tunables),
                                        testing::correctness_shapes(kernel, "host"), &count);
  }
  EXPECT_GE(kernels, 3);
  EXPECT_GT(count.checks, 50);
  unsetenv("KGATE_CACHE_DIR");
}

}  // namespace
}  // namespace kgate
