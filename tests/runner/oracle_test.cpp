// The oracles of a check on the host backend: a reference run through the
// Device (what a cuda reference kernel does on the GPU) gives the host
// reference's outputs, in/out buffers included; a device reference that
// disagrees with the host reference on a shape both can judge stops the
// check; with the base as oracle, head is judged by the base's outputs (and
// the report says so).
#include "runner/oracle.h"

#include <gtest/gtest.h>

#include "core/manifest_loader.h"
#include "runner/device_reference.h"
#include "runner/host/host_backend.h"
#include "runner/isolated_measure.h"
#include "support/test_support.h"

namespace kgate {
namespace {

namespace fs = std::filesystem;

class OracleTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { testing::use_private_compile_cache(); }
  void SetUp() override {
    auto m = load_manifest(kgate::testing::fixtures_dir() / "bad-kernels");
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
  // A reference with the scale reference's parameters that is off by `factor`.
  Program reference_off_by(const std::string& factor) {
    testing::write(scratch / "off_ref.cpp",
                   "#include <cstdint>\nvoid off_ref(double* out, const float* x, int32_t n, "
                   "float k) {\n  for (int32_t i = 0; i < n; ++i) out[i] = double(x[i]) * k * " +
                       factor + ";\n}\n");
    Kernel off = *kernel;
    off.reference = {"off_ref.cpp", "off_ref", std::nullopt};
    auto built = build_reference(off, scratch.path());
    EXPECT_TRUE(built.ok() && built->ok);
    return built->program;
  }
  MeasureRequest request(const Program& head, const Program* base = nullptr) {
    MeasureRequest m;
    m.kernel = kernel;
    m.impl = kernel->implementation("host");
    m.shape = kernel->shape("small");
    m.backend = backend.get();
    m.head = &head;
    m.base = base;
    m.reference = &reference;
    m.seed = 31;
    m.min_samples = m.max_samples = 3;
    m.time_limit_s = 30;
    return m;
  }

  testing::TempDir scratch;
  Manifest manifest;
  std::unique_ptr<Backend> backend;
  const Kernel* kernel = nullptr;
  Program reference;
};

TEST(DeviceReference, GivesTheHostReferencesOutputsInOutBuffersIncluded) {
  testing::use_private_compile_cache();
  auto manifest = load_manifest(testing::example_dir());
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  auto device = make_host_backend()->open_device(0);
  ASSERT_TRUE(device.ok());
  for (const char* name : {"rmsnorm", "fused_add_rmsnorm", "rotary_embedding"}) {
    const Kernel& kernel = *manifest->kernel(name);
    auto built = build_reference(kernel, manifest->root);
    ASSERT_TRUE(built.ok() && built->ok) << name;
    auto library = HostLibrary::open(built->program.artifact);
    ASSERT_TRUE(library.ok());
    auto loaded = (*device)->load(built->program);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    const Shape& shape = kernel.shapes.front();
    auto plan = plan_launch(kernel, nullptr, shape, {});
    ASSERT_TRUE(plan.ok());
    HostData inputs = make_inputs(*plan, 17);
    auto expected = run_reference(**library, *plan, inputs);
    auto got = run_device_reference(**device, **loaded, LaunchDims{}, *plan, inputs);
    ASSERT_TRUE(got.ok()) << got.error().message;
    ASSERT_EQ(got->size(), expected.size());
    int compared = 0;
    for (size_t i = 0; i < expected.size(); ++i) {
      ASSERT_EQ((*got)[i].size(), expected[i].size()) << name << " arg " << i;
      for (size_t e = 0; e < expected[i].size(); ++e, ++compared)
        ASSERT_EQ((*got)[i][e], expected[i][e]) << name << " arg " << i << " element " << e;
    }
    EXPECT_GT(compared, 0) << name;
  }
}

TEST_F(OracleTest, AReferenceKernelThatAgreesIsCheckedAndTheHostReferenceJudges) {
  Program head = compile("scale");
  MeasureRequest m = request(head);
  m.device_reference = &reference;  // the same function, run through the device
  ShapeMeasurement r = measure_shape(m);
  ASSERT_EQ(r.status, MeasureStatus::kPass) << r.reason;
  EXPECT_EQ(r.oracle, "host reference");
  ASSERT_TRUE(r.oracle_check.has_value());
  EXPECT_TRUE(r.oracle_check->passed);
  EXPECT_EQ(r.oracle_check->max_abs_error, 0);
}

TEST_F(OracleTest, AReferenceKernelThatDisagreesStopsTheCheck) {
  Program head = compile("scale");
  Program off = reference_off_by("1.0001");  // 1e-4 off; the kernel allows 1e-6
  MeasureRequest m = request(head);
  m.device_reference = &off;
  ShapeMeasurement r = measure_shape(m);
  EXPECT_EQ(r.status, MeasureStatus::kError) << r.reason;
  EXPECT_NE(r.reason.find("the reference kernel disagrees with the host reference"),
            std::string::npos)
      << r.reason;
  // Where it judges (a large shape), a wrong reference kernel fails a right head: which is why
  // the gate checks it on the small shapes first.
  m.oracle = OracleKind::kDeviceReference;
  r = measure_shape(m);
  EXPECT_EQ(r.status, MeasureStatus::kFail) << r.reason;
  EXPECT_FALSE(r.oracle_check.has_value());
}

TEST_F(OracleTest, TheBaseJudgesHeadWhenItIsTheOracle) {
  Program scale = compile("scale"), wrong = compile("wrong");
  MeasureRequest m = request(scale, &scale);
  m.oracle = OracleKind::kBase;
  ShapeMeasurement same = measure_shape(m);
  ASSERT_EQ(same.status, MeasureStatus::kPass) << same.reason;
  EXPECT_EQ(same.oracle, "base");
  EXPECT_FALSE(same.base_check.has_value()) << "the base is the oracle, not checked against itself";
  EXPECT_EQ(same.check.max_abs_error, 0);
  // A head 1% off fails against a right base...
  m = request(wrong, &scale);
  m.oracle = OracleKind::kBase;
  ShapeMeasurement off = measure_shape(m);
  EXPECT_EQ(off.status, MeasureStatus::kFail);
  EXPECT_NE(off.reason.find("wrong result"), std::string::npos) << off.reason;
  // ...and with the host reference as oracle the base is checked against it.
  m.oracle = OracleKind::kHostReference;
  m = request(scale, &wrong);
  ShapeMeasurement checked = measure_shape(m);
  ASSERT_EQ(checked.status, MeasureStatus::kPass) << checked.reason;
  EXPECT_EQ(checked.oracle, "host reference");
  ASSERT_TRUE(checked.base_check.has_value());
  EXPECT_FALSE(checked.base_check->passed);
  // Without a base to judge, the host reference does.
  m = request(scale);
  m.oracle = OracleKind::kBase;
  EXPECT_EQ(measure_shape(m).oracle, "host reference");
}

TEST(OracleTolerance, TheBaseGetsTwiceTheToleranceAndAReferenceKernelATenth) {
  EXPECT_DOUBLE_EQ(oracle_tolerance_factor(OracleKind::kHostReference), 1.0);
  EXPECT_DOUBLE_EQ(oracle_tolerance_factor(OracleKind::kDeviceReference), 1.0);
  EXPECT_DOUBLE_EQ(oracle_tolerance_factor(OracleKind::kBase), 2.0);
  EXPECT_DOUBLE_EQ(kReferenceAgreementFactor, 0.1);
}

}  // namespace
}  // namespace kgate
