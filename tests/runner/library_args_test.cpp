// What real libraries' kernels take, end to end on the host backend
// (tests/fixtures/library-args): each kernel passes as declared, and the
// same kernel fails where the feature it relies on is taken away, so each
// test shows the failure it rules out.
#include <gtest/gtest.h>

#include "core/manifest_loader.h"
#include "runner/host/host_backend.h"
#include "runner/kernel_run.h"
#include "support/test_support.h"

namespace kgate {
namespace {

using json = nlohmann::json;

class LibraryArgsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { testing::use_private_compile_cache(); }

  // The fixture, with `edit` applied to its manifest, in a folder of its own.
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
    auto backend = make_host_backend();
    KernelRunOptions options;
    options.seed = 99;
    options.time = false;
    auto report = run_kernel(m, *m.kernel(kernel), *backend, options);
    EXPECT_TRUE(report.ok()) << report.error().message;
    return report.ok() ? *report : KernelRunReport{};
  }
  static std::string reasons(const KernelRunReport& r) {
    std::string out;
    for (const ShapeMeasurement& s : r.shapes) out += s.shape + ": " + s.reason + "\n";
    return out + r.compile_error;
  }
  testing::TempDir dir_;
};

TEST_F(LibraryArgsTest, EveryKernelPassesAsDeclared) {
  Manifest m = fixture();
  for (const Kernel& k : m.kernels) {
    KernelRunReport r = run(m, k.name);
    EXPECT_TRUE(r.passed()) << k.name << "\n" << reasons(r);
    EXPECT_EQ(r.shapes.size(), k.shapes.size()) << k.name;
  }
}

// The CUDA twins compile without a GPU, and kgate reads their parameter
// sizes from the cubins: a struct declared with a field too few is refused
// there, before any launch.
TEST_F(LibraryArgsTest, TheCudaKernelsTakeWhatTheManifestDeclares) {
  fixture();
  auto checked =
      testing::run_kgate({"check", dir_.path().string(), "--backend", "cuda", "--arch", "sm_90"});
  EXPECT_EQ(checked.exit_code, 0) << checked.out << checked.err;
  fixture([](json& j) { j["kernels"][1]["args"][2]["fields"].erase(3); });  // no use_bias
  auto refused = testing::run_kgate({"check", dir_.path().string(), "--backend", "cuda", "--arch",
                                     "sm_90", "--kernel", "scaled_rows"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE((refused.out + refused.err)
                .find("'p' is 40 bytes in kgate.json, but parameter 2 of scaled_rows is 48 bytes"),
            std::string::npos)
      << refused.out << refused.err;
}

TEST_F(LibraryArgsTest, TheDescriptorsStridesAreWhatTheKernelReads) {
  // A kernel that ignores the descriptor passes where it is NULL and fails
  // where it describes a transposed view.
  std::string kernels = testing::read(testing::fixtures_dir() / "library-args" / "kernels.cpp");
  kernels.replace(kernels.find("if (info == nullptr) {"), 22, "if (true) {");
  Manifest fresh = fixture();
  testing::write(dir_ / "kernels.cpp", kernels);
  KernelRunReport r = run(fresh, "ucopy");
  EXPECT_FALSE(r.passed());
  ASSERT_EQ(r.shapes.size(), 2u);
  EXPECT_EQ(r.shapes[0].status, MeasureStatus::kPass) << r.shapes[0].reason;  // contiguous: NULL
  EXPECT_EQ(r.shapes[1].status, MeasureStatus::kFail);
  EXPECT_NE(r.shapes[1].reason.find("wrong result: element 1 of 'out'"), std::string::npos)
      << r.shapes[1].reason;
}

TEST_F(LibraryArgsTest, AStructsFieldsReachTheKernelWhereTheCompilerPutsThem) {
  // A field in the wrong place (scale after use_bias) is a different struct:
  // the kernel reads garbage for it, and the check fails.
  Manifest m = fixture([](json& j) {
    json& fields = j["kernels"][1]["args"][2]["fields"];
    std::swap(fields[2], fields[3]);
  });
  // The reference follows the manifest's order (it takes the fields one by
  // one); the kernel reads its own C struct from the bytes: a different one.
  std::string refs = testing::read(dir_ / "refs.cpp");
  refs.replace(refs.find("float scale,"), 12, "bool use_bias,");
  refs.replace(refs.find("bool use_bias, const float* bias"), 14, "float scale,");
  testing::write(dir_ / "refs.cpp", refs);
  KernelRunReport r = run(m, "scaled_rows");
  EXPECT_FALSE(r.passed()) << reasons(r);
}

TEST_F(LibraryArgsTest, EachOutputIsHeldToItsOwnTolerance) {
  Manifest tight = fixture([](json& j) { j["kernels"][2]["args"][2].erase("tolerance"); });
  KernelRunReport r = run(tight, "two_outputs");
  ASSERT_FALSE(r.passed());
  EXPECT_NE(r.shapes[0].reason.find("of 'rough'"), std::string::npos) << r.shapes[0].reason;
  // A ulp bound alone: 0.01 is far more than 64 units in the last place of a float near 1.
  Manifest ulp = fixture([](json& j) {
    j["kernels"][2]["args"][2]["tolerance"] = {{"atol", 0}, {"rtol", 0}, {"ulp", 64}};
  });
  r = run(ulp, "two_outputs");
  ASSERT_FALSE(r.passed());
  EXPECT_NE(r.shapes[0].reason.find("64 ulp"), std::string::npos) << r.shapes[0].reason;
  // Scale-relative: 0.01 against inputs of a few units is within 1% of the largest.
  Manifest scaled = fixture([](json& j) {
    j["kernels"][2]["args"][2]["tolerance"] = {{"atol", 0}, {"rtol", 0}, {"scale_rel", 0.01}};
  });
  EXPECT_TRUE(run(scaled, "two_outputs").passed());
}

TEST_F(LibraryArgsTest, SharedDrawsAndSortedDrawsAreWhatTheContractNeeds) {
  Manifest unshared = fixture([](json& j) { j["kernels"][3]["args"][1]["init"].erase("share"); });
  KernelRunReport r = run(unshared, "unit_circle");
  EXPECT_FALSE(r.passed()) << "cos and sin of different angles leave the unit circle";
  Manifest unsorted = fixture([](json& j) { j["kernels"][3]["args"][2]["init"].erase("sorted"); });
  r = run(unsorted, "unit_circle");
  EXPECT_FALSE(r.passed()) << "offsets drawn unsorted break the kernel's contract";
}

}  // namespace
}  // namespace kgate
