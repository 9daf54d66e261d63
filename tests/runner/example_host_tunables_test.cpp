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

TEST(ExampleHostTunables, EveryTunableValueIsCorrectOnEdgeAndDecodeShapes) {
  testing::TempDir scratch;
  setenv("KGATE_CACHE_DIR", (scratch.path() / "cache").c_str(), 1);
  auto manifest = load_manifest(testing::example_dir());
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  auto backend = make_host_backend();
  int kernels = 0, checks = 0;
  for (const Kernel& kernel : manifest->kernels) {
    const Implementation* impl = kernel.implementation("host");
    if (!impl) continue;
    ++kernels;
    auto reference = build_reference(kernel, manifest->root);
    ASSERT_TRUE(reference.ok()) << reference.error().message;
    ASSERT_TRUE(reference->ok) << reference->digest();
    std::vector<const Shape*> shapes;
    const Shape* decode = nullptr;
    for (const Shape& s : kernel.shapes) {
      if (!s.runs_on("host")) continue;
      if (s.phase == "edge") shapes.push_back(&s);
      if (s.phase == "decode" && !decode) decode = &s;  // the manifests list the smallest first
    }
    if (decode) shapes.push_back(decode);
    const std::vector<Variables> combos = testing::pairwise_combinations(impl->tunables);
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
        ShapeMeasurement r = measure_shape(m);
        ++checks;
        EXPECT_EQ(r.status, MeasureStatus::kPass)
            << kernel.name << " " << combination_text(combos[c]) << " on " << shape->name << ": "
            << r.reason;
      }
    }
  }
  EXPECT_GE(kernels, 3);
  EXPECT_GT(checks, 50);
  unsetenv("KGATE_CACHE_DIR");
}

}  // namespace
}  // namespace kgate
