// The rules a compiled candidate keeps, decided from its module's symbol
// table on both backends (NVRTC compiles without a GPU): a kernel or an
// exported function the manifest does not declare is refused by name; a
// `__global__` in a comment, a macro that expands to the entry, device
// helpers and static host helpers are fine. Compile errors come back under
// the candidate's own file name.
#include <gtest/gtest.h>

#include "agent/candidate_compiler.h"
#include "core/file_util.h"
#include "core/manifest_loader.h"
#include "runner/cuda/cuda_backend.h"
#include "runner/cuda/cuda_toolkit.h"
#include "runner/host/host_backend.h"
#include "support/test_support.h"

namespace kgate {
namespace {

class CandidateRulesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { testing::use_private_compile_cache(); }
  Manifest load(const std::filesystem::path& dir) {
    auto m = load_manifest(dir);
    EXPECT_TRUE(m.ok()) << m.error().message;
    return m.ok() ? std::move(m.value()) : Manifest{};
  }
};

TEST_F(CandidateRulesTest, CudaKernelsTheManifestDoesNotDeclareAreFoundInTheCubin) {
  Manifest m = load(testing::example_dir());
  const Kernel& k = *m.kernel("rmsnorm");
  auto backend = make_cuda_backend("sm_90");
  CandidateCompiler compiler(m, k, *backend);
  auto original = read_file(m.root / k.implementation("cuda")->source);
  ASSERT_TRUE(original.ok());

  Candidate extra;
  extra.tunables = k.implementation("cuda")->default_tunables();
  extra.source_text = *original + R"(
#define SNEAKY extern "C" __global__
SNEAKY void sneaky_second_kernel(float* a) { a[threadIdx.x] = 0; }
)";
  auto c = compiler.compile(extra);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_TRUE(c->ok) << c->digest;
  EXPECT_NE(c->undeclared.find("sneaky_second_kernel"), std::string::npos) << c->undeclared;
  EXPECT_NE(c->undeclared.find("kernels the manifest does not declare"), std::string::npos);

  // Text that only looks like a kernel, and a helper that is not an entry point.
  Candidate fine = extra;
  fine.source_text = *original + R"(
// __global__ void not_a_kernel(float* a);  (a comment)
__device__ __noinline__ float helper_function(float x) { return 2 * x; }
)";
  auto f = compiler.compile(fine);
  ASSERT_TRUE(f.ok()) << f.error().message;
  ASSERT_TRUE(f->ok) << f->digest;
  EXPECT_EQ(f->undeclared, "");
}

// A tuner's candidate of a template-id entry ("lib::scale<float, BLOCK,
// (BLOCK >= 128)>") instantiates it with other tunables than the original:
// that instance is the entry, and nvcc's entry probe is kgate's own. Before,
// every such candidate was refused as defining undeclared kernels (SGEMM_CUDA's
// sgemm1DBlocktiling<BM, BN, BK, TM> on the H200: every iteration invalid).
TEST_F(CandidateRulesTest, ATemplateEntryWithOtherTunablesDeclaresNothingNew) {
  for (const std::string compiler : {"nvrtc", "nvcc"}) {
    SCOPED_TRACE(compiler);
    if (compiler == "nvcc" && !cuda::nvcc_path().ok()) continue;
    testing::TempDir dir;
    std::filesystem::copy(testing::fixtures_dir() / "templated", dir.path(),
                          std::filesystem::copy_options::recursive);
    auto text = read_file(dir / "kgate.json");
    ASSERT_TRUE(text.ok());
    std::string manifest = *text;
    const std::string cuda_impl = R"("cuda": {"source": "csrc/scale.cu",)";
    ASSERT_NE(manifest.find(cuda_impl), std::string::npos);
    manifest.replace(manifest.find(cuda_impl), cuda_impl.size(),
                     cuda_impl + R"( "compile": {"compiler": ")" + compiler + R"("},)");
    testing::write(dir / "kgate.json", manifest);
    Manifest m = load(dir.path());
    const Kernel& k = *m.kernel("scale");
    auto backend = make_cuda_backend("sm_90");
    CandidateCompiler compiler_under_test(m, k, *backend);
    for (int64_t block : {128, 64}) {  // the original is 256
      Candidate retuned;
      retuned.tunables = k.implementation("cuda")->default_tunables();
      retuned.tunables["BLOCK"] = block;
      auto c = compiler_under_test.compile(retuned);
      ASSERT_TRUE(c.ok()) << c.error().message;
      ASSERT_TRUE(c->ok) << c->digest;
      EXPECT_EQ(c->undeclared, "") << "BLOCK=" << block;
    }
    // A second kernel is still found beside the retuned entry.
    Candidate extra;
    extra.tunables = k.implementation("cuda")->default_tunables();
    extra.tunables["BLOCK"] = 128;
    auto source = read_file(dir / "csrc/scale.cu");
    ASSERT_TRUE(source.ok());
    extra.source_text = *source + "\nextern \"C\" __global__ void sneaky(float* a) { a[0] = 0; }\n";
    auto c = compiler_under_test.compile(extra);
    ASSERT_TRUE(c.ok()) << c.error().message;
    ASSERT_TRUE(c->ok) << c->digest;
    EXPECT_NE(c->undeclared.find("sneaky"), std::string::npos) << c->undeclared;
    EXPECT_EQ(c->undeclared.find("kgate_entry_probe"), std::string::npos) << c->undeclared;
    EXPECT_EQ(c->undeclared.find("`lib::scale<float, 128"), std::string::npos) << c->undeclared;
  }
}

TEST_F(CandidateRulesTest, HostExportedFunctionsTheManifestDoesNotDeclareAreRefused) {
  Manifest m = load(kgate::testing::fixtures_dir() / "agent" / "sumsq");
  const Kernel& k = *m.kernel("rmsnorm_f32");
  auto backend = make_host_backend();
  CandidateCompiler compiler(m, k, *backend);
  auto original = read_file(m.root / "rmsnorm_f32.cpp");
  ASSERT_TRUE(original.ok());
  Candidate exported;
  exported.source_text = "float exported_helper(float x) { return 2 * x; }\n" + *original;
  auto c = compiler.compile(exported);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_TRUE(c->ok) << c->digest;
  EXPECT_NE(c->undeclared.find("exported_helper"), std::string::npos) << c->undeclared;
  EXPECT_NE(c->undeclared.find("exported functions"), std::string::npos) << c->undeclared;

  Candidate hidden;
  hidden.source_text =
      "static float private_helper(float x) { return 2 * x; }\n"
      "namespace { float also_private(float x) { return x; } }\n"
      "// float looks_exported(float);\n" +
      *original;
  auto h = compiler.compile(hidden);
  ASSERT_TRUE(h.ok()) << h.error().message;
  ASSERT_TRUE(h->ok) << h->digest;
  EXPECT_EQ(h->undeclared, "");

  // A compile error is named by the candidate's file, with no cache path.
  Candidate broken;
  broken.source_text = *original + "\nint broken( {\n";
  broken.file_name = "candidate-20261130T072232Z-it4.cpp";
  auto b = compiler.compile(broken);
  ASSERT_TRUE(b.ok()) << b.error().message;
  ASSERT_FALSE(b->ok);
  EXPECT_NE(b->digest.find("candidate-20261130T072232Z-it4.cpp:"), std::string::npos) << b->digest;
  EXPECT_EQ(b->digest.find("/work/"), std::string::npos) << b->digest;
}

}  // namespace
}  // namespace kgate
