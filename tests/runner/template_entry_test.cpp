// Template-id entries through the backends (tests/fixtures/templated): the
// CUDA backend compiles the instantiation the tunables select, with NVRTC and
// with nvcc, and loads it by its symbol; the host backend calls a function
// template through its extern "C" trampoline and runs it. The tunables named
// in the template arguments are also the templates' parameter names, which a
// -D macro of the same name would break.
#include <gtest/gtest.h>

#include "core/manifest_loader.h"
#include "runner/cuda/cuda_backend.h"
#include "runner/cuda/cuda_toolkit.h"
#include "runner/host/host_backend.h"
#include "runner/launch_trace.h"
#include "runner/task_list.h"
#include "support/test_support.h"

namespace kgate {
namespace {

class TemplateEntryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("KGATE_CACHE_DIR", (cache_ / "cache").c_str(), 1);
    auto m = load_manifest(testing::fixtures_dir() / "templated");
    ASSERT_TRUE(m.ok()) << m.error().message;
    manifest_ = std::move(m.value());
  }
  void TearDown() override { unsetenv("KGATE_CACHE_DIR"); }

  CompileRequest request(const std::string& backend) {
    CompileRequest r;
    r.kernel = &manifest_.kernels.at(0);
    r.impl = r.kernel->implementation(backend);
    r.root = manifest_.root;
    return r;
  }

  testing::TempDir cache_;
  Manifest manifest_;
};

TEST_F(TemplateEntryTest, TheCudaBackendCompilesEveryTunableValueWithBothCompilers) {
  std::vector<std::string> compilers = {"nvrtc"};
  if (cuda::nvcc_path().ok()) compilers.push_back("nvcc");
  for (const std::string& compiler : compilers) {
    CompileRequest r = request("cuda");
    Implementation impl = *r.impl;
    impl.compile.compiler = compiler;
    r.impl = &impl;
    std::set<std::string> keys;
    for (int block : {256, 128, 64}) {
      r.tunables = {{"BLOCK", block}};
      auto outcome = make_cuda_backend("sm_90")->compile(r);
      ASSERT_TRUE(outcome.ok()) << compiler << ": " << outcome.error().message;
      ASSERT_TRUE(outcome->ok) << compiler << " BLOCK=" << block << ":\n" << outcome->log;
      EXPECT_EQ(demangle(outcome->program.entry),
                "void lib::scale<float, " + std::to_string(block) + ", " +
                    (block >= 128 ? "true" : "false") + ">(float*, float const*, int)")
          << compiler << ": " << outcome->program.entry;
      EXPECT_GT(outcome->program.resources.registers, 0) << compiler << ":\n" << outcome->log;
      EXPECT_EQ(outcome->program.tunables.at("BLOCK"), block);
      keys.insert(outcome->program.cache_key);
      // A traced launch of this symbol maps back to the kernel (kgate extract).
      EXPECT_EQ(match_manifest_kernel(outcome->program.entry, manifest_), "scale");
    }
    EXPECT_EQ(keys.size(), 3u) << compiler << ": each instantiation is its own cache entry";
    // Served from the cache, the symbol comes back with it.
    r.tunables = {{"BLOCK", 128}};
    auto again = make_cuda_backend("sm_90")->compile(r);
    ASSERT_TRUE(again.ok() && again->ok);
    EXPECT_TRUE(again->program.from_cache);
    EXPECT_EQ(demangle(again->program.entry),
              "void lib::scale<float, 128, true>(float*, float const*, int)");
  }
}

TEST_F(TemplateEntryTest, AnEntryTheSourceLacksFailsToCompileNamingKgateJson) {
  for (const char* compiler : {"nvrtc", "nvcc"}) {
    if (std::string(compiler) == "nvcc" && !cuda::nvcc_path().ok()) continue;
    CompileRequest r = request("cuda");
    Implementation impl = *r.impl;
    impl.compile.compiler = compiler;
    impl.entry = "lib::scale_v2<float, BLOCK>";
    r.impl = &impl;
    auto outcome = make_cuda_backend("sm_90")->compile(r);
    ASSERT_TRUE(outcome.ok()) << outcome.error().message;
    ASSERT_FALSE(outcome->ok) << compiler;
    std::string digest = outcome->digest();
    EXPECT_NE(digest.find("kgate.json"), std::string::npos) << compiler << ":\n" << digest;
    EXPECT_NE(digest.find("kernels[0].impl.cuda.entry \"lib::scale_v2<float, BLOCK>\" (compiled "
                          "as lib::scale_v2<float, 256>)"),
              std::string::npos)
        << compiler << ":\n"
        << digest;
  }
}

TEST_F(TemplateEntryTest, TheHostBackendCallsAFunctionTemplateThroughItsTrampoline) {
  auto backend = make_host_backend();
  for (int unroll : {1, 4}) {
    CompileRequest r = request("host");
    r.tunables = {{"UNROLL", unroll}};
    auto outcome = backend->compile(r);
    ASSERT_TRUE(outcome.ok()) << outcome.error().message;
    ASSERT_TRUE(outcome->ok) << outcome->log;
    EXPECT_EQ(outcome->program.entry, "lib::scale<float, " + std::to_string(unroll) + ">");
    EXPECT_EQ(outcome->program.tunables.at("UNROLL"), unroll);
  }
  // And it runs, checked against the reference.
  auto out = testing::run_kgate(
      {"run", (testing::fixtures_dir() / "templated").string(), "--backend", "host"});
  EXPECT_EQ(out.exit_code, 0) << out.out << out.err;
  EXPECT_NE(out.out.find("pass"), std::string::npos) << out.out;
}

}  // namespace
}  // namespace kgate
