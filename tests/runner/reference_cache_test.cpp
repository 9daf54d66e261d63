// The reference cache on real host kernels: sets are found only under the
// same reference, shape and seeds; a measurement that reuses them passes as
// before and a kernel that reuses old results is still caught on the kept
// second set; capacity evicts the least recently used entry.
#include "runner/reference_cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "core/manifest_loader.h"
#include "runner/host/host_backend.h"
#include "runner/isolated_measure.h"
#include "support/test_support.h"

namespace kgate {
namespace {

class ReferenceCacheTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { testing::use_private_compile_cache(); }
  void SetUp() override {
    auto m = load_manifest(testing::fixtures_dir() / "bad-kernels");
    ASSERT_TRUE(m.ok()) << m.error().message;
    manifest = *m;
    backend = make_host_backend();
    kernel = manifest.kernel("scale");
    auto built = build_reference(*kernel, manifest.root);
    ASSERT_TRUE(built.ok() && built->ok);
    reference = built->program;
  }
  Program compile(const std::string& name) {
    CompileRequest request;
    request.kernel = manifest.kernel(name);
    request.impl = request.kernel->implementation("host");
    request.root = manifest.root;
    auto compiled = backend->compile(request);
    EXPECT_TRUE(compiled.ok() && compiled->ok) << name;
    return compiled->program;
  }
  LaunchPlan plan(const std::string& shape) {
    auto p = plan_launch(*kernel, kernel->implementation("host"), *kernel->shape(shape), {});
    EXPECT_TRUE(p.ok());
    return *p;
  }
  MeasureRequest request(const Program& head, const std::string& shape, ReferenceCache* cache) {
    MeasureRequest m;
    m.kernel = kernel;
    m.impl = m.kernel->implementation("host");
    m.shape = m.kernel->shape(shape);
    m.backend = backend.get();
    m.head = &head;
    m.reference = &reference;
    m.seed = 77;
    m.min_samples = m.max_samples = 3;
    m.time_limit_s = 30;
    m.reference_cache = cache;
    return m;
  }

  Manifest manifest;
  std::unique_ptr<Backend> backend;
  const Kernel* kernel = nullptr;
  Program reference;
};

TEST_F(ReferenceCacheTest, FindsSetsOnlyUnderTheSameShapeAndSeeds) {
  ReferenceCache cache(size_t{1} << 30);
  LaunchPlan small = plan("small");
  EXPECT_EQ(cache.find(reference, *kernel, *kernel->shape("small"), small, {1, 2}), nullptr);
  auto added = cache.add(reference, *kernel, *kernel->shape("small"), small, {1, 2});
  ASSERT_TRUE(added.ok()) << added.error().message;
  ASSERT_EQ((*added)->size(), 2u);
  EXPECT_EQ((**added)[0].seed, 1u);
  EXPECT_EQ(cache.find(reference, *kernel, *kernel->shape("small"), small, {1, 2}), *added);
  EXPECT_EQ(cache.find(reference, *kernel, *kernel->shape("small"), small, {1, 3}), nullptr);
  LaunchPlan odd = plan("odd");
  EXPECT_EQ(cache.find(reference, *kernel, *kernel->shape("odd"), odd, {1, 2}), nullptr);
  EXPECT_EQ(cache.hits(), 1);
  EXPECT_EQ(cache.misses(), 3);
  EXPECT_EQ(cache.bytes(), reference_sets_bytes(**added));
  EXPECT_GT(cache.bytes(), 0u);
}

TEST_F(ReferenceCacheTest, EvictsTheLeastRecentlyUsedPastItsCapacity) {
  LaunchPlan small = plan("small");
  const Shape& shape = *kernel->shape("small");
  ReferenceCache probe(size_t{1} << 30);
  size_t one = reference_sets_bytes(**probe.add(reference, *kernel, shape, small, {1, 2}));
  ReferenceCache cache(2 * one);  // room for two entries
  ASSERT_TRUE(cache.add(reference, *kernel, shape, small, {1, 2}).ok());
  ASSERT_TRUE(cache.add(reference, *kernel, shape, small, {3, 4}).ok());
  EXPECT_NE(cache.find(reference, *kernel, shape, small, {1, 2}), nullptr);  // now the newest
  ASSERT_TRUE(cache.add(reference, *kernel, shape, small, {5, 6}).ok());
  EXPECT_NE(cache.find(reference, *kernel, shape, small, {1, 2}), nullptr);
  EXPECT_EQ(cache.find(reference, *kernel, shape, small, {3, 4}), nullptr);
  EXPECT_LE(cache.bytes(), 2 * one);

  ReferenceCache tiny(one / 2);  // a set larger than the capacity is handed out, not kept
  auto sets = tiny.add(reference, *kernel, shape, small, {1, 2});
  ASSERT_TRUE(sets.ok());
  EXPECT_EQ((*sets)->size(), 2u);
  EXPECT_EQ(tiny.bytes(), 0u);
}

TEST_F(ReferenceCacheTest, MeasurementsReuseKeptSetsAndStillCatchStaleResults) {
  ReferenceCache cache(size_t{1} << 30);
  Program scale = compile("scale");
  ShapeMeasurement first = measure_shape(request(scale, "small", &cache));
  ASSERT_EQ(first.status, MeasureStatus::kPass) << first.reason;
  EXPECT_EQ(cache.misses(), 1);  // drawn in the child, then kept here
  EXPECT_GT(cache.bytes(), 0u);
  ShapeMeasurement second = measure_shape(request(scale, "small", &cache));
  ASSERT_EQ(second.status, MeasureStatus::kPass) << second.reason;
  EXPECT_EQ(cache.hits(), 1);
  // Same inputs, same reference: the same errors to the last bit.
  EXPECT_EQ(first.check.max_abs_error, second.check.max_abs_error);
  EXPECT_EQ(first.check_after.max_abs_error, second.check_after.max_abs_error);

  // The stale kernel (reuses its first result) fails on the kept second set
  // just as it does on freshly drawn ones.
  Program stale = compile("stale");
  const Kernel& stale_kernel = *manifest.kernel("stale");
  auto stale_reference = build_reference(stale_kernel, manifest.root);
  ASSERT_TRUE(stale_reference.ok() && stale_reference->ok);
  auto stale_plan = plan_launch(stale_kernel, stale_kernel.implementation("host"),
                                *stale_kernel.shape("small"), {});
  ASSERT_TRUE(stale_plan.ok());
  ASSERT_TRUE(cache
                  .add(stale_reference->program, stale_kernel, *stale_kernel.shape("small"),
                       *stale_plan, {77, 78})
                  .ok());
  MeasureRequest r = request(stale, "small", &cache);
  r.kernel = &stale_kernel;
  r.impl = stale_kernel.implementation("host");
  r.shape = stale_kernel.shape("small");
  r.reference = &stale_reference->program;
  int hits = cache.hits();
  ShapeMeasurement caught = measure_shape(r);
  EXPECT_EQ(cache.hits(), hits + 1);
  EXPECT_EQ(caught.status, MeasureStatus::kFail);
  EXPECT_NE(caught.reason.find("wrong result on new inputs after timing"), std::string::npos)
      << caught.reason;
}

}  // namespace
}  // namespace kgate
