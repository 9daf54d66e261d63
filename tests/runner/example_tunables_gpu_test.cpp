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
#include "runner/isolated_measure.h"
#include "runner/reference.h"
#include "support/test_support.h"
#include "support/tunable_combinations.h"

namespace kgate {
namespace {

std::string combination_text(const Variables& v) {
  std::string s;
  for (const auto& [n, x] : v) s += (s.empty() ? "" : " ") + n + "=" + std::to_string(x);
  return s;
}

// The shapes to check: every edge shape, and the decode shape with the
// fewest elements (the product of its variables), to keep host input
// generation and the reference cheap.
std::vector<const Shape*> shapes_to_check(const Kernel& kernel) {
  std::vector<const Shape*> out;
  const Shape* decode = nullptr;
  auto size = [](const Shape& s) {
    double p = 1;
    for (const auto& [n, v] : s.variables) p *= static_cast<double>(std::max<int64_t>(v, 1));
    return p;
  };
  for (const Shape& s : kernel.shapes) {
    if (!s.runs_on("cuda")) continue;
    if (s.phase == "edge") out.push_back(&s);
    if (s.phase == "decode" && (!decode || size(s) < size(*decode))) decode = &s;
  }
  if (decode) out.push_back(decode);
  return out;
}

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
    auto reference = build_reference(kernel, manifest->root);
    ASSERT_TRUE(reference.ok()) << reference.error().message;
    ASSERT_TRUE(reference->ok) << reference->digest();
    const std::vector<Variables> combos = all ? testing::all_combinations(impl->tunables)
                                              : testing::pairwise_combinations(impl->tunables);
    const std::vector<const Shape*> shapes = shapes_to_check(kernel);
    int failed = 0;
    for (size_t c = 0; c < combos.size(); ++c) {
      CompileRequest request;
      request.kernel = &kernel;
      request.impl = impl;
      request.root = manifest->root;
      request.tunables = combos[c];
      auto compiled = backend->compile(request);
      ASSERT_TRUE(compiled.ok()) << compiled.error().message;
      ASSERT_TRUE(compiled->ok) << kernel.name << " " << combination_text(combos[c]) << ":\n"
                                << compiled->digest();
      for (const Shape* shape : shapes) {
        MeasureRequest m;
        m.kernel = &kernel;
        m.impl = impl;
        m.shape = shape;
        m.backend = backend.get();
        m.head = &compiled->program;
        m.reference = &reference->program;
        m.seed = 20261130 + c * 101;
        m.time = false;  // correctness only
        m.time_limit_s = kernel.timing.time_limit_s;
        ShapeMeasurement r = measure_shape(m);
        ++checks;
        EXPECT_EQ(r.status, MeasureStatus::kPass)
            << kernel.name << " " << combination_text(combos[c]) << " on " << shape->name << ": "
            << r.reason;
        if (r.status != MeasureStatus::kPass) ++failed;
      }
    }
    std::printf("  %-18s %3zu combinations x %zu shapes: %s\n", kernel.name.c_str(), combos.size(),
                shapes.size(), failed ? "FAILURES" : "all correct");
  }
  EXPECT_GE(kernels, 6);
  std::printf("  %d kernel checks\n", checks);
}

}  // namespace
}  // namespace kgate
