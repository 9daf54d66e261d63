// The compile-error digest an agent is shown, on the real output of the host
// compiler and of NVRTC: the candidate's own file name (never the cache's
// work copy, never an absolute path), each error with its notes and code
// excerpt, warnings left out, the last 50 lines, and a first line naming the
// first error.
#include <gtest/gtest.h>

#include <regex>

#include "core/manifest_loader.h"
#include "runner/compile_diagnostics.h"
#include "runner/cuda/raw_compile.h"
#include "runner/host/host_backend.h"
#include "support/test_support.h"

namespace kgate {
namespace {

bool has_absolute_path(const std::string& text) {
  static const std::regex absolute(R"((^|[\s'"`(])/[^\s/]+/)");
  return std::regex_search(text, absolute);
}

size_t line_count(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST(CompileDigest, HostErrorsNameTheCandidateWithTheirNotes) {
  testing::use_private_compile_cache();
  auto manifest = load_manifest(kgate::testing::fixtures_dir() / "agent" / "sumsq");
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  const Kernel& kernel = *manifest->kernel("rmsnorm_f32");
  const Implementation* impl = kernel.implementation("host");
  auto backend = make_host_backend();
  CompileRequest r;
  r.kernel = &kernel;
  r.impl = impl;
  r.root = manifest->root;
  // Two errors (the second with a note naming the declaration it conflicts
  // with) and a warning.
  r.source_text = R"(#include <cmath>
#include <cstdint>
int unused_warning() { int x; return 0; }
float scale(float x);
void rmsnorm_f32(float* out, const float* x, const float* weight, int32_t rows, int32_t cols,
                 float eps) {
  out[0] = x[0] * weight[0] + eps + rows + cols
  int scale = 3;
}
double scale(float x) { return x; }
)";
  r.extra_flags = {"-Wall"};
  auto outcome = backend->compile(r);
  ASSERT_TRUE(outcome.ok()) << outcome.error().message;
  ASSERT_FALSE(outcome->ok);
  const std::string name = "candidate-20261130T072232Z-it3.cpp";
  const std::string digest = compile_error_digest(outcome->log, {impl->source, name});
  EXPECT_NE(digest.find(name + ":7:"), std::string::npos) << digest;
  EXPECT_NE(digest.find(name + ":10:"), std::string::npos) << digest;
  EXPECT_NE(digest.find("note:"), std::string::npos) << "the note stays with its error\n" << digest;
  EXPECT_EQ(digest.find("warning:"), std::string::npos) << digest;
  EXPECT_EQ(digest.find("source.cpp"), std::string::npos) << digest;
  EXPECT_EQ(digest.find("In file included from"), std::string::npos) << digest;
  EXPECT_FALSE(has_absolute_path(digest)) << digest;
  EXPECT_EQ(digest.find(".cache"), std::string::npos) << digest;
  EXPECT_EQ(digest.rfind("2 errors; the first: " + name + ":7:", 0), 0u) << digest;
}

TEST(CompileDigest, KeepsTheLastFiftyLinesAndTheFirstErrorsName) {
  std::string log;
  for (int i = 1; i <= 40; ++i)
    log += "/home/ci/.cache/kgate/work/" + std::string(64, 'a') +
           ".12.0/source.cpp:" + std::to_string(i) + ":3: error: problem " + std::to_string(i) +
           "\n    " + std::to_string(i) + " |   code\n      |   ^~~~\n";
  const std::string digest = compile_error_digest(log, {"k.cpp", "candidate-x-it1.cpp"});
  EXPECT_EQ(digest.rfind("40 errors; the first: candidate-x-it1.cpp:1:3: error: problem 1\n", 0),
            0u)
      << digest;
  EXPECT_NE(digest.find("earlier lines left out"), std::string::npos);
  EXPECT_NE(digest.find("problem 40"), std::string::npos) << "the last error is kept";
  EXPECT_EQ(digest.find("problem 20\n"), std::string::npos) << "the oldest go first";
  EXPECT_LE(line_count(digest), 52u);
}

TEST(CompileDigest, NvrtcErrorsNameTheCandidate) {
  cuda::RawCompileInput in;
  in.source = R"(extern "C" __global__ void k(float* a) {
  float unused[4];
  a[0] = missing(a[0]);
}
)";
  in.display_name = "csrc/k.cu";
  in.arch = "sm_90";
  auto out = cuda::compile_with_nvrtc(in);
  ASSERT_TRUE(out.ok()) << out.error().message;
  ASSERT_FALSE(out->ok);
  const std::string digest =
      compile_error_digest(out->log, {"csrc/k.cu", "candidate-20261130T072232Z-it2.cu"});
  EXPECT_NE(digest.find("candidate-20261130T072232Z-it2.cu(3): error"), std::string::npos)
      << digest;
  EXPECT_NE(digest.find("missing"), std::string::npos) << digest;
  EXPECT_EQ(digest.find("csrc/k.cu"), std::string::npos) << digest;
  EXPECT_FALSE(has_absolute_path(digest)) << digest;
}

TEST(CompileDigest, NormalizesPathsInEveryForm) {
  DigestNames names{"csrc/rmsnorm.cu", "candidate-1-it1.cu"};
  EXPECT_EQ(normalize_compiler_line("csrc/rmsnorm.cu(12): error: x", names),
            "candidate-1-it1.cu(12): error: x");
  EXPECT_EQ(normalize_compiler_line("rmsnorm.cu:3:1: note: y", names),
            "candidate-1-it1.cu:3:1: note: y");
  EXPECT_EQ(normalize_compiler_line(
                "In file included from /usr/local/cuda/include/cuda_fp16.h:4101,", names),
            "In file included from cuda_fp16.h:4101,");
  EXPECT_EQ(
      normalize_compiler_line("/home/u/.cache/kgate/work/0af3.99.2/kgate_host.h:5: error", names),
      "kgate_host.h:5: error");
  // Words that only contain the name are left alone.
  EXPECT_EQ(normalize_compiler_line("see myrmsnorm.cuh:3", names), "see myrmsnorm.cuh:3");
}

}  // namespace
}  // namespace kgate
