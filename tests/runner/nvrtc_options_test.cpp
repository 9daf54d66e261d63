// A library's nvcc flags under NVRTC: kept, translated or dropped with a
// note, never handed to NVRTC to be refused (which failed every kernel of
// such a port under the default compiler).
#include "runner/cuda/nvrtc_options.h"

#include <gtest/gtest.h>

namespace kgate::cuda {
namespace {

TEST(NvrtcOptions, NvccOnlyFlagsAreTranslatedOrDroppedWithANote) {
  NvrtcFlags f = translate_for_nvrtc({"-O3", "--expt-relaxed-constexpr", "-Xptxas", "-O3",
                                      "-Xptxas=-dlcm=ca", "-lineinfo", "-std=c++17",
                                      "--use_fast_math", "-gencode", "arch=compute_90,code=sm_90",
                                      "-Xcompiler", "-fPIC", "-DFOO=1", "--extended-lambda", "-g"});
  EXPECT_EQ(f.options,
            (std::vector<std::string>{"--ptxas-options=-O3", "--ptxas-options=-dlcm=ca",
                                      "-lineinfo", "-std=c++17", "--use_fast_math", "-DFOO=1"}));
  ASSERT_EQ(f.notes.size(), 6u);
  EXPECT_EQ(f.notes[0], "-O3: dropped for NVRTC (it always optimizes device code)");
  EXPECT_NE(f.notes[1].find("--expt-relaxed-constexpr: dropped for NVRTC (it has no such option"),
            std::string::npos);
  EXPECT_NE(f.notes[1].find("\"compiler\": \"nvcc\""), std::string::npos);
  EXPECT_EQ(f.notes[2].rfind("-gencode arch=compute_90,code=sm_90: dropped", 0), 0u) << f.notes[2];
  EXPECT_EQ(f.notes[3].rfind("-Xcompiler -fPIC: dropped", 0), 0u) << f.notes[3];
}

TEST(NvrtcOptions, FlagsNvrtcKnowsPassUnchanged) {
  const std::vector<std::string> flags = {"-lineinfo", "--maxrregcount=64", "-DX=1", "--ftz=false",
                                          "-default-device"};
  NvrtcFlags f = translate_for_nvrtc(flags);
  EXPECT_EQ(f.options, flags);
  EXPECT_TRUE(f.notes.empty());
}

}  // namespace
}  // namespace kgate::cuda
