// One compile of a source file serves every kernel declared in it (a
// library's reduce file stamps out a hundred extern "C" kernels with
// macros), and a kernel whose parameters are not what kgate.json declares
// fails at compile time, without a GPU. NVRTC runs here for real.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/manifest_loader.h"
#include "runner/cuda/cuda_backend.h"
#include "support/test_support.h"

namespace kgate {
namespace {

using json = nlohmann::json;

const char* kSource = R"(
#define UNARY(NAME, EXPR) \
  extern "C" __global__ void NAME(const float* x, float* y, int n) { \
    int i = blockIdx.x * blockDim.x + threadIdx.x; \
    if (i < n) { float v = x[i]; y[i] = EXPR; } }
UNARY(uneg_f32, -v)
UNARY(usqr_f32, v * v)
UNARY(uabs_f32, fabsf(v))
extern "C" __global__ void uscale_f32(const float* x, float* y, int n, float k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * k;
}
)";

json kernel(const std::string& name, const std::string& entry) {
  return json{{"name", name},
              {"source", "unary.cu"},
              {"entry", entry},
              {"compile", {{"flags", {"-O3", "--expt-relaxed-constexpr"}}, {"include", {"."}}}},
              {"launch", {{"grid", {"ceil_div(n, 256)"}}, {"block", {256}}}},
              {"args",
               {{{"name", "x"}, {"type", "const float*"}, {"count", "n"}},
                {{"name", "y"}, {"type", "float*"}, {"count", "n"}, {"role", "output"}},
                {{"name", "n"}, {"type", "int32"}, {"value", "n"}}}},
              {"shapes", {{{"name", "n"}, {"n", 1000}}}},
              {"reference", {{"source", "ref.cpp"}, {"entry", "ref"}}}};
}

class ModuleCompileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("KGATE_CACHE_DIR", (dir_ / "cache").c_str(), 1);
    testing::write(dir_ / "unary.cu", kSource);
    testing::write(dir_ / "ref.cpp", "// unused\n");
  }
  void TearDown() override { unsetenv("KGATE_CACHE_DIR"); }
  Manifest load(const json& m) {
    testing::write(dir_ / "kgate.json", m.dump());
    auto loaded = load_manifest(dir_.path());
    EXPECT_TRUE(loaded.ok()) << loaded.error().message;
    return loaded.ok() ? *loaded : Manifest{};
  }
  Result<CompileOutcome> compile(const Manifest& m, size_t k) {
    CompileRequest r;
    r.kernel = &m.kernels[k];
    r.impl = &m.kernels[k].implementations[0];
    r.root = m.root;
    return make_cuda_backend("sm_90")->compile(r);
  }
  testing::TempDir dir_;
};

TEST_F(ModuleCompileTest, OneCompileServesEveryKernelOfTheFile) {
  Manifest m = load(
      json{{"kernels",
            {kernel("neg", "uneg_f32"), kernel("sqr", "usqr_f32"), kernel("abs", "uabs_f32")}}});
  auto first = compile(m, 0);
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_TRUE(first->ok) << first->log;
  EXPECT_FALSE(first->program.from_cache);
  EXPECT_NE(first->program.log.find("compiled once with 2 other kernels of unary.cu"),
            std::string::npos);
  // The flags NVRTC does not take were dropped, and said so.
  EXPECT_NE(first->program.notes[0].find("-O3: dropped for NVRTC"), std::string::npos);
  for (size_t k : {1u, 2u}) {
    auto other = compile(m, k);
    ASSERT_TRUE(other.ok() && other->ok);
    EXPECT_TRUE(other->program.from_cache) << m.kernels[k].name << " was compiled again";
    EXPECT_EQ(other->program.artifact, first->program.artifact);
    EXPECT_EQ(other->program.entry, k == 1 ? "usqr_f32" : "uabs_f32");
  }
}

TEST_F(ModuleCompileTest, AKernelWhoseSignatureChangedWithoutItsManifestFailsToCompile) {
  // uscale_f32 takes a fourth parameter that kgate.json does not declare.
  Manifest m = load(json{{"kernels", {kernel("scale", "uscale_f32")}}});
  auto outcome = compile(m, 0);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  EXPECT_FALSE(outcome->ok);
  EXPECT_NE(outcome->digest().find("uscale_f32 takes 4 parameters, kgate.json declares 3"),
            std::string::npos)
      << outcome->digest();
  // Declared, it compiles; declared with the wrong size, it names the parameter.
  json fixed = kernel("scale", "uscale_f32");
  fixed["args"].push_back({{"name", "k"}, {"type", "float"}, {"value", 2.0}});
  Manifest ok = load(json{{"kernels", {fixed}}});
  auto good = compile(ok, 0);
  ASSERT_TRUE(good.ok() && good->ok) << good->log;
  fixed["args"][3]["type"] = "double";
  Manifest wrong = load(json{{"kernels", {fixed}}});
  auto bad = compile(wrong, 0);
  ASSERT_TRUE(bad.ok());
  EXPECT_FALSE(bad->ok);
  EXPECT_NE(bad->digest().find("'k' is 8 bytes in kgate.json, but parameter 3 of uscale_f32 is 4"),
            std::string::npos)
      << bad->digest();
}

}  // namespace
}  // namespace kgate
