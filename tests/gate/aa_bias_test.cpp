// A/A gates of identical code, two separately compiled copies, must say
// `same` even for a kernel whose time depends on where its buffers live.
// Before both sides shared buffers, head and base each had their own
// allocations, so this kernel ran 1 to 4 passes on one side and a different
// number on the other: the gate called identical code 2x slower or faster.
#include <gtest/gtest.h>

#include "core/manifest_loader.h"
#include "gate/ab_gate.h"
#include "runner/host/host_backend.h"
#include "support/test_support.h"

namespace kgate {
namespace {

TEST(AABias, AddressSensitiveKernelIsTheSameAgainstItself) {
  testing::use_private_compile_cache();
  auto manifest = load_manifest(testing::fixtures_dir() / "bias-kernels");
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  const Kernel& kernel = *manifest->kernel("address_sensitive");
  auto backend = make_host_backend();
  for (uint64_t seed : {11u, 12u, 13u}) {
    // Two builds of the same source (a define nobody reads tells them apart).
    GateSources sources;
    sources.head.tunables = {{"KGATE_AA_SIDE", 1}};
    sources.base = GateSide{};
    sources.base->tunables = {{"KGATE_AA_SIDE", 2}};
    GateOptions options;
    options.seed = seed;
    auto gate = gate_kernel(*manifest, kernel, *backend, sources, options);
    ASSERT_TRUE(gate.ok()) << gate.error().message;
    ASSERT_EQ(gate->shapes.size(), 1u);
    const ShapeGate& s = gate->shapes[0];
    EXPECT_EQ(s.verdict, Verdict::kSame) << "seed " << seed << ": " << to_string(s.verdict) << " "
                                         << s.interval.estimate << " " << s.reason;
    EXPECT_GE(s.rounds, 20);
    EXPECT_TRUE(gate->passed());
  }
}

}  // namespace
}  // namespace kgate
