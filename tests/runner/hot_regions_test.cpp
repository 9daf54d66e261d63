// Hot instruction regions without a GPU: grouping per-PC counts into the top
// three regions, the sampling period chosen from a kernel's time, and the
// SASS-to-source lookup on a cubin NVRTC builds here.
#include <gtest/gtest.h>

#include <set>

#include "runner/cuda/raw_compile.h"
#include "runner/profile/hot_regions.h"
#include "runner/profile/pc_sampling.h"

namespace kgate::profile {
namespace {

PcCount pc(const std::string& f, uint64_t offset, uint64_t n,
           std::map<std::string, uint64_t> stalls = {}) {
  PcCount c;
  c.function = f;
  c.pc_offset = offset;
  c.count = n;
  c.stalls = std::move(stalls);
  return c;
}

TEST(HotRegions, GroupsBySourceLineAndRanksByShare) {
  // Line 7 spans three PCs (60 samples), line 9 one PC (30), line 3 (10).
  std::vector<PcCount> pcs = {
      pc("k", 0x10, 10, {{"selected", 6}, {"wait", 4}}),
      pc("k", 0x40, 20, {{"long_scoreboard", 15}, {"selected", 5}}),
      pc("k", 0x50, 25, {{"long_scoreboard", 20}, {"selected", 5}}),
      pc("k", 0x60, 15, {{"lg_throttle", 12}, {"selected", 3}}),
      pc("k", 0x90, 30, {{"math_pipe_throttle", 30}}),
  };
  SourceLookup lines = [](const std::string&, uint64_t off) -> std::string {
    if (off < 0x40) return "k.cu:3";
    if (off < 0x90) return "k.cu:7";
    return "k.cu:9";
  };
  auto top = top_regions(pcs, lines);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].source, "k.cu:7");
  EXPECT_EQ(top[0].samples, 60u);
  EXPECT_DOUBLE_EQ(top[0].share_pct, 60.0);
  EXPECT_EQ(top[0].pc_offset, 0x40u);  // the region's first instruction
  EXPECT_EQ(top[0].top_stall, "long_scoreboard");
  EXPECT_EQ(top[1].source, "k.cu:9");
  EXPECT_EQ(top[1].top_stall, "math_pipe_throttle");
  EXPECT_EQ(top[2].source, "k.cu:3");
  // "selected" is the warp issuing, not a stall, even where it is the most seen.
  EXPECT_EQ(top[2].top_stall, "wait");
}

TEST(HotRegions, WithoutLineInfoGroupsBy64ByteWindowsPerFunction) {
  std::vector<PcCount> pcs = {pc("a", 0x00, 5), pc("a", 0x30, 5), pc("a", 0x40, 3),
                              pc("b", 0x00, 4), pc("a", 0x80, 0)};
  auto top = top_regions(pcs, SourceLookup{}, 5);
  ASSERT_EQ(top.size(), 3u);  // the PC without counts makes no region
  EXPECT_EQ(top[0].function, "a");
  EXPECT_EQ(top[0].pc_offset, 0u);
  EXPECT_EQ(top[0].samples, 10u);
  EXPECT_EQ(top[1].function, "b");
  EXPECT_EQ(top[2].pc_offset, 0x40u);
  EXPECT_TRUE(top[0].source.empty());
  EXPECT_TRUE(top_regions({}, SourceLookup{}).empty());
}

TEST(PcSampling, PeriodAimsAtAboutTwentyThousandSamplesPerLaunch) {
  // 100 us at 1.98 GHz on 132 SMs: 26.1M SM-cycles / 20000 = 1307 -> 2^10.
  EXPECT_EQ(sampling_period_exponent(100e-6, 1.98e9, 132), 10u);
  // A 1 ms kernel samples 8x sparser.
  EXPECT_EQ(sampling_period_exponent(1e-3, 1.98e9, 132), 13u);
  // Short kernels stay at 2^8: denser sampling overflows the hardware buffer;
  // the sampler repeats the launch instead.
  EXPECT_EQ(sampling_period_exponent(2e-6, 1.98e9, 132), 8u);
  EXPECT_EQ(sampling_period_exponent(60, 1.98e9, 132), 20u);
  EXPECT_EQ(sampling_period_exponent(0, 1.98e9, 132), 12u);  // unknown time
  EXPECT_EQ(short_stall_name("smsp__pcsamp_warps_issue_stalled_long_scoreboard"),
            "long_scoreboard");
  EXPECT_EQ(short_stall_name("smsp__pcsamp_sample_count"), "sample_count");
}

const char* const kSource =
    R"(extern "C" __global__ void axpy(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
)";

std::string compile(bool line_info) {
  cuda::RawCompileInput in;
  in.source = kSource;
  in.display_name = "axpy_lines.cu";
  in.arch = "sm_90";
  in.line_info = line_info;
  auto out = cuda::compile_with_nvrtc(in);
  EXPECT_TRUE(out.ok()) << out.error().message;
  if (!out.ok()) return "";
  EXPECT_TRUE(out->ok) << out->log;
  return out->cubin;
}

TEST(HotRegions, CubinLookupMapsPcsToTheKernelsLines) {
  std::string cubin = compile(true);
  ASSERT_FALSE(cubin.empty());
  SourceLookup lookup = cubin_source_lookup(cubin);
  std::set<std::string> seen;
  for (uint64_t off = 0; off < 0x400; off += 16)
    if (std::string s = lookup("axpy", off); !s.empty()) seen.insert(s);
  ASSERT_FALSE(seen.empty()) << "no PC of axpy maps to a line";
  for (const std::string& s : seen) {
    ASSERT_EQ(s.rfind("axpy_lines.cu:", 0), 0u) << s;
    int line = std::stoi(s.substr(s.find(':') + 1));
    EXPECT_GE(line, 1) << s;
    EXPECT_LE(line, 5) << s;
  }
  // The load-multiply-add line is among them.
  EXPECT_TRUE(seen.count("axpy_lines.cu:4")) << *seen.begin();
  EXPECT_EQ(lookup("no_such_kernel", 0), "");

  // Without -lineinfo there is nothing to map to.
  SourceLookup bare = cubin_source_lookup(compile(false));
  for (uint64_t off = 0; off < 0x400; off += 16) EXPECT_EQ(bare("axpy", off), "") << off;
  EXPECT_FALSE(cubin_source_lookup(""));
}

}  // namespace
}  // namespace kgate::profile
