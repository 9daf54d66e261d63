// tests/fixtures/library-args on a GPU: a NULL descriptor, a struct by value
// with a pointer field and fast-division constants, per-output tolerances,
// shared cos/sin draws and sorted offsets reach CUDA kernels as they reach
// the host ones; and a struct laid out in another order fails the check.
// Skips without a GPU.
#include <gtest/gtest.h>

#include "core/manifest_loader.h"
#include "runner/cuda/cuda_backend.h"
#include "runner/cuda/gpu_inventory.h"
#include "runner/kernel_run.h"
#include "support/test_support.h"

namespace kgate {
namespace {

using json = nlohmann::json;

class LibraryArgsGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    auto inventory = cuda::gpu_inventory();
    if (!inventory.ok()) GTEST_SKIP() << inventory.error().message;
    testing::use_private_compile_cache();
  }
  Manifest fixture(const std::function<void(json&)>& edit = {}) {
    const auto from = testing::fixtures_dir() / "library-args";
    for (const char* f : {"kernels.cpp", "kernels.cu", "refs.cpp"})
      testing::write(dir_ / f, testing::read(from / f));
    json m = json::parse(testing::read(from / "kgate.json"), nullptr, true, true);
    if (edit) edit(m);
    testing::write(dir_ / "kgate.json", m.dump(2));
    auto loaded = load_manifest(dir_.path());
    EXPECT_TRUE(loaded.ok()) << loaded.error().message;
    return loaded.ok() ? *loaded : Manifest{};
  }
  KernelRunReport run(const Manifest& m, const std::string& kernel) {
    auto backend = make_cuda_backend();
    KernelRunOptions options;
    options.seed = 7;
    auto report = run_kernel(m, *m.kernel(kernel), *backend, options);
    EXPECT_TRUE(report.ok()) << report.error().message;
    return report.ok() ? *report : KernelRunReport{};
  }
  testing::TempDir dir_;
};

TEST_F(LibraryArgsGpu, EveryKernelPassesAsDeclaredAndIsTimed) {
  Manifest m = fixture();
  for (const Kernel& k : m.kernels) {
    KernelRunReport r = run(m, k.name);
    std::string reasons = r.compile_error;
    for (const ShapeMeasurement& s : r.shapes) reasons += s.shape + ": " + s.reason + "\n";
    EXPECT_TRUE(r.passed()) << k.name << "\n" << reasons;
    for (const ShapeMeasurement& s : r.shapes) EXPECT_FALSE(s.head_seconds.empty()) << k.name;
  }
}

TEST_F(LibraryArgsGpu, AStructFieldOutOfPlaceFailsTheCheck) {
  Manifest m = fixture([](json& j) {
    json& fields = j["kernels"][1]["args"][2]["fields"];
    std::swap(fields[2], fields[3]);  // same size, other layout
  });
  // The reference follows the manifest's order (it takes the fields one by
  // one); the kernel reads its own C struct from the bytes: a different one.
  std::string refs = testing::read(dir_ / "refs.cpp");
  refs.replace(refs.find("float scale,"), 12, "bool use_bias,");
  refs.replace(refs.find("bool use_bias, const float* bias"), 14, "float scale,");
  testing::write(dir_ / "refs.cpp", refs);
  KernelRunReport r = run(m, "scaled_rows");
  EXPECT_FALSE(r.passed());
}

TEST_F(LibraryArgsGpu, UnsharedAnglesFailTheUnitCircle) {
  Manifest m = fixture([](json& j) { j["kernels"][3]["args"][1]["init"].erase("share"); });
  EXPECT_FALSE(run(m, "unit_circle").passed());
}

}  // namespace
}  // namespace kgate
