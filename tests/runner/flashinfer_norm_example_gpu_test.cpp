// examples/flashinfer-norm on a GPU: FlashInfer's normalization kernels,
// compiled from their unchanged headers, are correct on every shape through
// `kgate run` (the reference kernels judging the large shapes), and for every
// value of their tunables on the edge shapes and the smallest decode shape.
// Skips without a GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>

#include "core/manifest_loader.h"
#include "runner/cuda/cuda_backend.h"
#include "runner/cuda/gpu_inventory.h"
#include "support/test_support.h"
#include "support/tunable_check.h"
#include "support/tunable_combinations.h"

namespace kgate {
namespace {

#define REQUIRE_GPU()                                               \
  do {                                                              \
    auto inventory = cuda::gpu_inventory();                         \
    if (!inventory.ok()) GTEST_SKIP() << inventory.error().message; \
  } while (0)

std::filesystem::path flashinfer_dir() {
  return testing::source_dir() / "examples" / "flashinfer-norm";
}

TEST(FlashinferNormExampleGpu, KgateRunPassesEveryKernelOnEveryShape) {
  REQUIRE_GPU();
  testing::TempDir dir;
  setenv("KGATE_CACHE_DIR", (dir.path() / "cache").c_str(), 1);
  auto out = testing::run_kgate({"run", flashinfer_dir().string(), "--backend", "cuda", "--seed",
                                 "1", "--json", (dir / "run.json").string()},
                                "", 280);
  EXPECT_EQ(out.exit_code, 0) << out.out << out.err;
  auto j = nlohmann::json::parse(testing::read(dir / "run.json"));
  std::set<std::string> kernels;
  size_t shapes = 0;
  for (const auto& k : j["kernels"]) {
    ASSERT_FALSE(k.contains("error")) << k.dump();
    EXPECT_TRUE(k["compiled"].get<bool>()) << k.dump();
    kernels.insert(k["kernel"].get<std::string>());
    for (const auto& s : k["shapes"]) {
      ++shapes;
      EXPECT_EQ(s["status"], "pass") << k["kernel"] << "/" << s["shape"] << ": " << s["reason"];
      // The 8k-row prefill shapes are too large for the host reference's
      // default limit: the reference kernel judges them.
      if (s["shape"] == "prefill-8k") {
        EXPECT_EQ(s["oracle"], "cuda reference") << s.dump();
      }
    }
  }
  EXPECT_EQ(kernels, (std::set<std::string>{"rmsnorm_f16", "rmsnorm_f16_unaligned",
                                            "gemma_rmsnorm_bf16", "fused_add_rmsnorm_f16"}));
  EXPECT_EQ(shapes, 28u);
}

TEST(FlashinferNormExampleGpu, EveryTunableValueIsCorrectOnEdgeAndDecodeShapes) {
  REQUIRE_GPU();
  testing::TempDir scratch;
  setenv("KGATE_CACHE_DIR", (scratch.path() / "cache").c_str(), 1);
  setenv("KGATE_LOCK_DIR", (scratch.path() / "locks").c_str(), 1);
  auto manifest = load_manifest(flashinfer_dir());
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  auto backend = make_cuda_backend();
  const bool all = std::getenv("KGATE_ALL_COMBINATIONS") != nullptr;
  int checks = 0;
  for (const Kernel& kernel : manifest->kernels) {
    const Implementation* impl = kernel.implementation("cuda");
    ASSERT_NE(impl, nullptr) << kernel.name;
    const std::vector<Variables> combos =
        all ? testing::all_combinations(impl->tunables) : testing::value_rotations(impl->tunables);
    testing::TunableCheckCount count;
    testing::check_tunable_combinations(*manifest, kernel, *backend, "cuda", combos,
                                        testing::correctness_shapes(kernel, "cuda"), &count);
    checks += count.checks;
    EXPECT_EQ(count.failed, 0) << kernel.name;
  }
  EXPECT_GT(checks, 0);
}

}  // namespace
}  // namespace kgate
