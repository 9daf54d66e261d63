// The stored baselines in the tree (baselines/, README.md there): every file
// loads, is of a kernel its example declares, and holds every shape of that
// kernel the CUDA backend runs, so that `kgate baseline compare` on that GPU
// model finds an entry for each of them.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "core/manifest_loader.h"
#include "gate/baseline_store.h"
#include "support/test_support.h"

namespace kgate {
namespace {

namespace fs = std::filesystem;

TEST(StoredBaselines, EveryFileIsOfADeclaredKernelAndHoldsEveryShapeItRuns) {
  const fs::path tree = kgate::testing::source_dir() / "baselines";
  ASSERT_TRUE(fs::is_directory(tree)) << tree;
  size_t files = 0;
  std::set<std::string> examples;
  for (const auto& example : fs::directory_iterator(tree)) {
    if (!example.is_directory()) continue;
    const fs::path manifest_dir =
        kgate::testing::source_dir() / "examples" / example.path().filename();
    auto manifest = load_manifest(manifest_dir);
    ASSERT_TRUE(manifest.ok()) << example.path()
                               << " names no example: " << manifest.error().message;
    for (const auto& device : fs::directory_iterator(example.path()))
      for (const auto& file : fs::directory_iterator(device.path())) {
        SCOPED_TRACE(file.path().string());
        auto loaded = load_baseline(file.path());
        ASSERT_TRUE(loaded.ok()) << loaded.error().message;
        ASSERT_TRUE(loaded->has_value());
        const BaselineFile& b = **loaded;
        EXPECT_EQ(gpu_slug(b.gpu), device.path().filename().string());
        EXPECT_EQ(b.kernel + ".json", file.path().filename().string());
        const Kernel* kernel = manifest->kernel(b.kernel);
        ASSERT_NE(kernel, nullptr) << b.kernel << " is not a kernel of " << manifest_dir;
        const BaselineEntry* latest = b.latest();
        ASSERT_NE(latest, nullptr);
        EXPECT_FALSE(latest->environment.revision.empty());
        for (const Shape& s : kernel->shapes) {
          if (!s.runs_on("cuda")) continue;
          const BaselineShape* stored = latest->shape(s.name);
          ASSERT_NE(stored, nullptr) << s.name << " has no stored timing";
          EXPECT_GT(stored->median_s, 0) << s.name;
          EXPECT_LE(stored->p10_s, stored->median_s) << s.name;
          EXPECT_LE(stored->median_s, stored->p90_s) << s.name;
        }
        ++files;
        examples.insert(example.path().filename().string());
      }
  }
  // The two bundled examples the README runs, on the H200 they were recorded on.
  EXPECT_TRUE(examples.count("llm-ops")) << "baselines/llm-ops is missing";
  EXPECT_TRUE(examples.count("flashinfer-norm")) << "baselines/flashinfer-norm is missing";
  EXPECT_GE(files, 10u);
}

}  // namespace
}  // namespace kgate
