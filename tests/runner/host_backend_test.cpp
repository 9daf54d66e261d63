// The host backend on real kernels: the example ops pass on every shape, and
// kernels that crash, hang, skip an element, return NaN, race, reuse old
// results, write out of bounds, change an input or read an output before
// writing it each fail with the right reason while the run goes on.
#include <gtest/gtest.h>

#include "core/manifest_loader.h"
#include "runner/host/host_backend.h"
#include "runner/kernel_run.h"
#include "support/test_support.h"

namespace kgate {
namespace {

class HostBackendTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { testing::use_private_compile_cache(); }
  KernelRunReport run(const Manifest& manifest, const std::string& kernel,
                      const std::string& shape = "", bool time = true) {
    auto backend = make_host_backend();
    KernelRunOptions options;
    options.shape = shape;
    options.time = time;
    options.seed = 12345;
    auto report = run_kernel(manifest, *manifest.kernel(kernel), *backend, options);
    EXPECT_TRUE(report.ok()) << report.error().message;
    return report.ok() ? *report : KernelRunReport{};
  }
  Manifest bad_kernels() {
    auto m = load_manifest(testing::fixtures_dir() / "bad-kernels");
    EXPECT_TRUE(m.ok()) << m.error().message;
    return *m;
  }
};

TEST_F(HostBackendTest, ExampleKernelsPassOnEveryHostShape) {
  auto manifest = load_manifest(testing::example_dir());
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  for (const Kernel& kernel : manifest->kernels) {
    if (!kernel.implementation("host")) continue;
    // Correctness only: timing is covered below and by `kgate run` in the CLI tests.
    KernelRunReport report = run(*manifest, kernel.name, "", /*time=*/false);
    ASSERT_TRUE(report.compiled) << kernel.name << ": " << report.compile_error;
    size_t host_shapes = 0;
    for (const Shape& s : kernel.shapes) host_shapes += s.runs_on("host");
    EXPECT_EQ(report.shapes.size(), host_shapes);
    for (const ShapeMeasurement& m : report.shapes) {
      EXPECT_EQ(m.status, MeasureStatus::kPass)
          << kernel.name << "/" << m.shape << ": " << m.reason;
      EXPECT_TRUE(m.check.passed && m.check_after.passed);
    }
  }
}

TEST_F(HostBackendTest, GoodKernelPassesWithTimings) {
  Manifest m = bad_kernels();
  KernelRunReport report = run(m, "scale");
  ASSERT_EQ(report.shapes.size(), 2u);
  for (const ShapeMeasurement& s : report.shapes) {
    EXPECT_EQ(s.status, MeasureStatus::kPass) << s.reason;
    EXPECT_EQ(s.head_seconds.size(), 5u);
    EXPECT_LE(s.check.max_rel_error, 1e-6);
  }
}

struct BadCase {
  const char* kernel;
  const char* reason;  // substring of the failure reason
  const char* shape = "small";
};

class BadKernelTest : public HostBackendTest, public ::testing::WithParamInterface<BadCase> {};

TEST_P(BadKernelTest, FailsWithTheRightReason) {
  Manifest m = bad_kernels();
  KernelRunReport report = run(m, GetParam().kernel, GetParam().shape);
  ASSERT_TRUE(report.compiled) << report.compile_error;
  ASSERT_EQ(report.shapes.size(), 1u);
  const ShapeMeasurement& s = report.shapes[0];
  EXPECT_EQ(s.status, MeasureStatus::kFail) << s.reason;
  EXPECT_NE(s.reason.find(GetParam().reason), std::string::npos) << "reason was: " << s.reason;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadKernelTest,
    ::testing::Values(
        BadCase{"segfault", "the kernel crashed during head check (killed by signal 11"},
        BadCase{"hang", "the kernel hung during head check (timed out after 3 s)"},
        BadCase{"skip_last", "element 999 of 'out' was not written"},
        BadCase{"nan_result", "element 500 of 'out' is nan"},
        BadCase{"racy", "race: element 0 of 'out' changed between two runs on the same input"},
        BadCase{"stale", "wrong result on new inputs after timing"},
        BadCase{"wrong", "wrong result: element 0 of 'out'"},
        // The memory rules (guard zones, inputs unchanged): before them, the
        // first two passed (the overrun landed in allocation padding or
        // unchecked memory), the third passed its check, and the fourth was
        // reported as "element 0 of 'out' was not written".
        BadCase{"past_end_odd", "wrote 4 bytes past the end of 'out'", "odd"},
        BadCase{"before_start", "wrote 16 bytes before the start of 'out'"},
        BadCase{"mutates_input", "changed its input 'x' (334 elements, first at index 0)"},
        BadCase{"reads_output", "reads 'out' before writing it: declare it \"role\": \"inout\""}),
    [](const ::testing::TestParamInfo<BadCase>& info) { return std::string(info.param.kernel); });

TEST_F(HostBackendTest, SignatureMismatchIsACompileErrorNamingTheFunction) {
  testing::TempDir dir;
  testing::write(
      dir / "k.cpp",
      "void k(float* out, const float* x, int n) { for (int i = 0; i < n; ++i) out[i] = x[i]; }\n");
  testing::write(dir / "ref.cpp",
                 "void r(double* out, const float* x, int n, float s) { for (int i = 0; i < n; "
                 "++i) out[i] = x[i]; }\n");
  testing::write(dir / "kgate.json",
                 R"({"kernels": [{"name": "k", "impl": {"host": {"source": "k.cpp", "entry": "k"}},
    "args": [{"name": "out", "type": "float*", "count": "n", "role": "output"}, {"name": "x", "type": "float*", "count": "n"},
             {"name": "n", "type": "int32", "value": "n"}, {"name": "s", "type": "float32", "value": 1}],
    "shapes": [{"name": "a", "n": 4}], "reference": {"source": "ref.cpp", "entry": "r"}}]})");
  auto manifest = load_manifest(dir.path());
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  KernelRunReport report = run(*manifest, "k");
  EXPECT_FALSE(report.compiled);
  EXPECT_NE(report.compile_error.find("takes a different number of parameters"), std::string::npos)
      << report.compile_error;
}

TEST_F(HostBackendTest, CompileCacheHitsOnRerun) {
  Manifest m = bad_kernels();
  auto backend = make_host_backend();
  CompileRequest request;
  request.kernel = m.kernel("scale");
  request.impl = request.kernel->implementation("host");
  request.root = m.root;
  request.tunables = {{"UNIQUE_TO_THIS_TEST", static_cast<int64_t>(getpid())}};
  auto first = backend->compile(request);
  ASSERT_TRUE(first.ok() && first->ok);
  EXPECT_FALSE(first->program.from_cache);
  auto second = backend->compile(request);
  ASSERT_TRUE(second.ok() && second->ok);
  EXPECT_TRUE(second->program.from_cache);
  EXPECT_EQ(first->program.artifact, second->program.artifact);
}

}  // namespace
}  // namespace kgate
