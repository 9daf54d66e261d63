// Profiles of small known kernels on a real GPU: each must read as the class
// its access pattern implies. Every kernel runs in a forked child, as kgate
// runs them, on the runner's CudaDevice; without a GPU the tests skip and
// say why.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>

#include "core/subprocess.h"
#include "runner/cuda/cuda_driver.h"
#include "runner/cuda/cuda_toolkit.h"
#include "runner/cuda/ptxas_report.h"
#include "runner/cuda/raw_compile.h"
#include "runner/profile/counter_profiler.h"
#include "runner/profile/kernel_profiler.h"
#include "runner/profile/pc_sampling.h"
#include "runner/profile/sass_branches.h"
#include "runner/profile/sass_counts.h"
#include "runner/profile_model/profile_summary.h"
#include "runner/profile_model/profile_text.h"
#include "support/test_support.h"

namespace kgate::profile {
namespace {

using namespace profile_model;  // the data, its classification and text under test

const char* const kKernels = R"(
extern "C" __global__ void copy(float* out, const float* in, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
// Neighbouring threads read 32 floats apart: one 32-byte sector per thread.
extern "C" __global__ void strided(float* out, const float* in, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[(i * 32) % n + (i * 32) / n];
}
// 48 live accumulators under a 32-register cap must spill.
extern "C" __global__ void spilly(float* out, const float* in, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc[48];
#pragma unroll
  for (int k = 0; k < 48; ++k) acc[k] = in[(i + k * 977) % n];
  float s = 0;
#pragma unroll
  for (int r = 0; r < 8; ++r) {
#pragma unroll
    for (int k = 0; k < 48; ++k) acc[k] = acc[k] * acc[(k + r + 1) % 48] + 1.0f;
  }
#pragma unroll
  for (int k = 0; k < 48; ++k) s += acc[k];
  out[i] = s;
}
// At each of 16 steps, odd and even lanes (alternating) run different loops:
// different work (FMA against MUFU exp) and different trip counts known only
// at run time, so the compiler can neither if-convert the branch nor merge
// the two arms into one loop; half of each warp idles through each arm.
extern "C" __global__ void divergent(float* out, const float* in, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i];
  int trips = 8 + int(n & 7);
  for (int k = 0; k < 16; ++k) {
    if ((threadIdx.x ^ k) & 1) {
      for (int j = 0; j < trips; ++j) v = v * 1.0001f + 0.5f;
    } else {
      for (int j = 0; j < 2 * trips; ++j) v = __expf(-v) + 0.25f;
    }
  }
  out[i] = v;
}
// The same code choosing per block: every warp agrees at every branch, and
// every loop exit (trip counts from n) is the same for the whole warp.
extern "C" __global__ void uniform(float* out, const float* in, long n) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i];
  int trips = 8 + int(n & 7);
  for (int k = 0; k < 16; ++k) {
    if ((blockIdx.x ^ k) & 1) {
      for (int j = 0; j < trips; ++j) v = v * 1.0001f + 0.5f;
    } else {
      for (int j = 0; j < 2 * trips; ++j) v = __expf(-v) + 0.25f;
    }
  }
  out[i] = v;
}
)";

std::string gpu_problem() {
  ChildOutcome child = run_in_child(
      [] {
        Status s = cuda::probe_gpu();
        return s.ok() ? std::string() : s.error().message;
      },
      60);
  if (!child.completed) return "the GPU probe " + child.describe(60);
  return child.payload;
}

#define REQUIRE_GPU()                                 \
  do {                                                \
    static const std::string problem = gpu_problem(); \
    if (!problem.empty()) GTEST_SKIP() << problem;    \
  } while (0)

struct Case {
  std::string entry;
  long n = 0;
  unsigned grid = 0, block = 256;
  std::vector<std::string> options;
};

// kKernels compiled with line info (and `options`), before the child opens
// the GPU: NVRTC initializes the driver, which a forked child cannot inherit.
struct Compiled {
  std::string cubin, fma_cubin;
  ResourceReport resources;
};

Result<Compiled> compile_case(const Case& c) {
  auto arch = cuda::target_arch(0);
  if (!arch.ok()) return arch.error();
  cuda::RawCompileInput in;
  in.source = kKernels;
  in.display_name = "profile_gpu_test.cu";
  in.arch = *arch;
  in.flags = c.options;
  in.line_info = true;
  auto out = cuda::compile_with_nvrtc(in);
  if (!out.ok()) return out.error();
  if (!out->ok) return Error::bad_input("the test kernels do not compile: " + out->log);
  Compiled compiled{out->cubin, "", cuda::parse_ptxas_report(out->log, c.entry)};
  auto fma = profile::compile_fma_peak(*arch);
  if (!fma.ok()) return fma.error();
  compiled.fma_cubin = *fma;
  return compiled;
}

// The device, the loaded kernel and its buffers for one case, in a child.
struct Loaded {
  std::unique_ptr<cuda::CudaDevice> gpu;
  std::unique_ptr<cuda::CudaKernel> kernel;
  LaunchDims dims;
  std::vector<ArgSlot> args;
};

Result<Loaded> load_case(const Case& c, const Compiled& compiled) {
  Loaded l;
  auto gpu = cuda::CudaDevice::open(0);
  if (!gpu.ok()) return gpu.error();
  l.gpu = std::move(*gpu);
  auto kernel = l.gpu->load_image(compiled.cubin, c.entry);
  if (!kernel.ok()) return kernel.error();
  l.kernel = std::move(*kernel);
  size_t bytes = size_t(c.n) * sizeof(float);
  auto in = l.gpu->allocate(bytes);
  if (!in.ok()) return in.error();
  auto out = l.gpu->allocate(bytes);
  if (!out.ok()) return out.error();
  KGATE_RETURN_IF_ERROR(l.gpu->fill(*in, 0x3c, bytes));
  DeviceAddress ip = *in, op = *out;
  long n = c.n;
  l.args.resize(3);
  std::memcpy(l.args[0].bytes, &op, l.args[0].size = sizeof op);
  std::memcpy(l.args[1].bytes, &ip, l.args[1].size = sizeof ip);
  std::memcpy(l.args[2].bytes, &n, l.args[2].size = sizeof n);
  l.dims.grid[0] = c.grid ? c.grid : unsigned((c.n + c.block - 1) / c.block);
  l.dims.block[0] = c.block;
  return l;
}

// Compiles kKernels, runs `c` once profiled in a child, returns the profile.
// With `sass_branches`, then counts its branches through the SASS metrics
// API, one child per metric, as kgate profile does.
ProfileData profile_case(const Case& c, const std::string& ceiling_file, bool sample_pcs = false,
                         bool sass_branches = false) {
  ChildOutcome child = run_in_child(
      [&]() -> std::string {
        auto compiled = compile_case(c);
        if (!compiled.ok()) return "error: " + compiled.error().message;
        auto loaded = load_case(c, *compiled);
        if (!loaded.ok()) return "error: " + loaded.error().message;
        ProfileOptions options;
        options.ceiling_file = ceiling_file;
        options.fma_cubin = compiled->fma_cubin;
        options.hot_regions = sample_pcs;  // only where tested: a sampling fault costs one test
        ProfileData p = profile_launch(*loaded->gpu, *loaded->kernel, loaded->dims, loaded->args,
                                       compiled->resources, compiled->cubin, options);
        p.kernel = c.entry;
        p.shape = "n=" + std::to_string(c.n);
        p.bytes_moved = 2 * size_t(c.n) * sizeof(float);
        return p.to_json().dump();
      },
      300);
  EXPECT_TRUE(child.completed) << child.describe(300) << "\n" << child.err_tail;
  EXPECT_EQ(child.payload.rfind("error:", 0), std::string::npos) << child.payload;
  if (!child.completed || child.payload.rfind("error:", 0) == 0) return {};
  ProfileData p = ProfileData::from_json(nlohmann::json::parse(child.payload));
  if (sass_branches)
    add_sass_branches(
        p,
        [&](const std::string& metric) -> Result<SampledPcs> {
          auto compiled = compile_case(c);
          if (!compiled.ok()) return compiled.error();
          auto loaded = load_case(c, *compiled);
          if (!loaded.ok()) return loaded.error();
          cuda::CudaDevice& gpu = *loaded->gpu;
          LaunchOnce launch = [&] {
            return gpu.launch(*loaded->kernel, loaded->dims, loaded->args);
          };
          return count_sass_metric(gpu.context(), gpu.device(), launch, metric);
        },
        300);
  std::string summary = render_summary(p);
  std::printf("%s\n", summary.c_str());  // the evidence, in the test log
  if (!p.sampler.empty()) std::printf("sampler: %s\n", p.sampler.c_str());
  EXPECT_LE(count_words(summary), kMaxSummaryWords);
  return p;
}

bool counters_read(const ProfileData& p) {
  return !p.missing.count("hardware counters");
}

class ProfileGpu : public ::testing::Test {
 protected:
  testing::TempDir dir;
  std::string ceilings() const { return (dir / "roofline.json").string(); }
};

TEST_F(ProfileGpu, CeilingsAreMeasuredAndStored) {
  REQUIRE_GPU();
  ProfileData p = profile_case({"copy", 1 << 20}, ceilings());
  ASSERT_TRUE(p.ceilings.has_value()) << p.missing["roofline ceilings"];
  // Any datacenter GPU of this decade beats these by far; an H200 is ~4 TB/s, ~60 TFLOP/s.
  EXPECT_GT(p.ceilings->bandwidth_bytes_per_s, 0.5e12);
  EXPECT_GT(p.ceilings->fp32_flops_per_s, 5e12);
  auto stored = CeilingStore(ceilings()).find(p.device);
  ASSERT_TRUE(stored.has_value());
  EXPECT_DOUBLE_EQ(stored->bandwidth_bytes_per_s, p.ceilings->bandwidth_bytes_per_s);
  std::printf("ceilings on %s: %.0f GB/s copy, %.1f TFLOP/s FP32\n", p.device.c_str(),
              p.ceilings->bandwidth_bytes_per_s / 1e9, p.ceilings->fp32_flops_per_s / 1e12);
}

TEST_F(ProfileGpu, CopyKernelIsMemoryBoundWithHighDramThroughput) {
  REQUIRE_GPU();
  ProfileData p = profile_case({"copy", 64L << 20}, ceilings());  // 256 MB each way
  ASSERT_TRUE(p.timed_seconds.has_value());
  if (!counters_read(p)) GTEST_SKIP() << "counters unreadable: " << p.missing["hardware counters"];
  EXPECT_EQ(classify(p).bottleneck, Bottleneck::kMemoryEfficient) << classify(p).evidence;
  // High against what this card really reaches: a plain one-float-per-thread
  // copy ran at 56% of datasheet peak and 63% of the measured ceiling on an H200.
  ASSERT_TRUE(p.ceilings.has_value());
  double achieved = *p.get(metric::kDramBytes) / *kernel_seconds(p);
  EXPECT_GT(achieved, 0.5 * p.ceilings->bandwidth_bytes_per_s);
  EXPECT_GT(*p.get(metric::kDramPct), 45);
  EXPECT_GT(*p.get(metric::kDramBytes), 0.9 * 512e6);
  EXPECT_LE(*sectors_per_request(p, true), 5);
}

TEST_F(ProfileGpu, StridedKernelShowsPoorCoalescing) {
  REQUIRE_GPU();
  ProfileData p = profile_case({"strided", 32L << 20}, ceilings());
  if (!counters_read(p)) GTEST_SKIP() << "counters unreadable: " << p.missing["hardware counters"];
  EXPECT_GT(*sectors_per_request(p, true), 16);
  EXPECT_LT(*coalescing_pct(p, true), 25);
  EXPECT_EQ(classify(p).bottleneck, Bottleneck::kMemoryPoorCoalescing) << classify(p).evidence;
}

TEST_F(ProfileGpu, SpillingKernelShowsItsSpills) {
  REQUIRE_GPU();
  ProfileData p = profile_case({"spilly", 1L << 20, 0, 256, {"--maxrregcount=32"}}, ceilings());
  EXPECT_GT(p.resources.spill_store_bytes, 0);
  EXPECT_NE(render_summary(p).find("(SPILLS)"), std::string::npos);
  if (counters_read(p)) {
    EXPECT_GT(*p.get(metric::kLocalBytes), 0);
  }
}

TEST_F(ProfileGpu, HotRegionsMapToSourceLines) {
  REQUIRE_GPU();
  ProfileData p =
      profile_case({"spilly", 4L << 20, 0, 256, {"--maxrregcount=32"}}, ceilings(), true);
  ASSERT_FALSE(p.hot_regions.empty())
      << "sampler: " << p.sampler << "\nmissing: " << p.missing["hottest instruction regions"];
  EXPECT_LE(p.hot_regions.size(), 3u);
  EXPECT_GT(p.hot_regions[0].share_pct, 0);
  EXPECT_GT(p.hot_regions[0].samples, 0u);
  for (size_t i = 1; i < p.hot_regions.size(); ++i)
    EXPECT_LE(p.hot_regions[i].share_pct, p.hot_regions[i - 1].share_pct);
  EXPECT_NE(p.hot_regions[0].source.find("profile_gpu_test.cu:"), std::string::npos)
      << p.hot_regions[0].source;
  EXPECT_NE(render_summary(p).find("Hottest regions: "), std::string::npos);
}

// What each way of finding hot regions sees on this GPU, printed for the
// log: PC sampling in a fresh context, PC sampling after a counter session
// (the order kgate profile uses), and SASS instruction counts.
TEST_F(ProfileGpu, PcSamplerDiagnostic) {
  REQUIRE_GPU();
  Case c{"spilly", 4L << 20, 0, 256, {"--maxrregcount=32"}};
  ChildOutcome child = run_in_child(
      [&]() -> std::string {
        auto compiled = compile_case(c);
        if (!compiled.ok()) return "error: " + compiled.error().message;
        auto loaded = load_case(c, *compiled);
        if (!loaded.ok()) return "error: " + loaded.error().message;
        cuda::CudaDevice& gpu = *loaded->gpu;
        LaunchOnce launch = [&] { return gpu.launch(*loaded->kernel, loaded->dims, loaded->args); };
        auto t = gpu.time_launch(*loaded->kernel, loaded->dims, loaded->args);
        SamplingOptions so;
        so.kernel_seconds = t.ok() ? t->seconds : 0;
        so.sm_clock_hz = gpu.info().peak_sm_clock_mhz * 1e6;
        so.multiprocessors = gpu.info().multiprocessors;
        nlohmann::json j;
        j["kernel_seconds"] = so.kernel_seconds;
        j["period_exponent"] =
            sampling_period_exponent(so.kernel_seconds, so.sm_clock_hz, so.multiprocessors);
        auto report = [](const Result<SampledPcs>& r) {
          return r.ok() ? nlohmann::json{{"samples", r->samples},
                                         {"pcs", r->pcs.size()},
                                         {"log", r->log}}
                        : nlohmann::json{{"samples", 0}, {"error", r.error().message}};
        };
        j["pc_sampling_alone"] = report(sample_pcs(gpu.context(), launch, so));
        auto counters = collect_counters(gpu.context(), gpu.device(), launch);
        j["counters"] = counters.ok() ? "read" : counters.error().message;
        j["pc_sampling_after_counters"] = report(sample_pcs(gpu.context(), launch, so));
        j["sass_counts"] = report(count_instructions(gpu.context(), gpu.device(), launch));
        return j.dump();
      },
      300);
  ASSERT_TRUE(child.completed) << child.describe(300) << "\n" << child.err_tail;
  ASSERT_EQ(child.payload.rfind("error:", 0), std::string::npos) << child.payload;
  nlohmann::json j = nlohmann::json::parse(child.payload);
  std::printf("pc sampler diagnostic:\n%s\n", j.dump(2).c_str());
  EXPECT_GT(j["pc_sampling_alone"]["samples"].get<uint64_t>(), 0u) << j.dump(2);
  EXPECT_GT(j["pc_sampling_after_counters"]["samples"].get<uint64_t>(), 0u) << j.dump(2);
  EXPECT_GT(j["sass_counts"]["samples"].get<uint64_t>(), 0u) << j.dump(2);
}

std::string raw_branch_counters(const ProfileData& p) {
  std::string s;
  for (const char* key :
       {metric::kSassApiBranchExecuted, metric::kSassApiBranchDivergent,
        metric::kSassApiBranchInstructions, metric::kBranchUniform, metric::kBranchDivergent,
        metric::kBranchInstructions, metric::kInstExecuted, metric::kSassInstExecuted,
        metric::kThreadsPerInstruction})
    s += std::string(s.empty() ? "" : ", ") + key + " " +
         (p.get(key) ? std::to_string(*p.get(key)) : std::string("n/a"));
  if (p.missing.count(kSassBranchesMissing))
    s += "; SASS metrics API: " + p.missing.at(kSassBranchesMissing);
  return s;
}

// Branch efficiency from the SASS metrics API (measured on the H200: 92.3%
// divergent, 100% uniform, no branch instruction in the copy).
TEST_F(ProfileGpu, DivergentBranchLowersBranchEfficiency) {
  REQUIRE_GPU();
  ProfileData div = profile_case({"divergent", 1L << 20}, ceilings(), false, true);
  ProfileData uni = profile_case({"uniform", 1L << 20}, ceilings(), false, true);
  ProfileData copy = profile_case({"copy", 1L << 20}, ceilings(), false, true);
  if (!counters_read(div))
    GTEST_SKIP() << "counters unreadable: " << div.missing["hardware counters"];
  std::printf("divergent: %s\nuniform: %s\ncopy: %s\n", raw_branch_counters(div).c_str(),
              raw_branch_counters(uni).c_str(), raw_branch_counters(copy).c_str());
  // The hardware's own evidence that the kernel really diverges: half the
  // lanes idle through each arm.
  ASSERT_TRUE(warp_efficiency(div) && warp_efficiency(uni));
  EXPECT_LT(*warp_efficiency(div), 75) << raw_branch_counters(div);
  EXPECT_GT(*warp_efficiency(uni), 99) << raw_branch_counters(uni);
  // The counts come from the SASS metrics API, not the range profiler.
  for (const ProfileData* p : {&div, &uni, &copy})
    ASSERT_TRUE(p->get(metric::kSassApiBranchExecuted).has_value())
        << p->kernel << ": " << raw_branch_counters(*p);
  ASSERT_TRUE(branch_efficiency(div).has_value())
      << number_problems(div)["branch efficiency"] << "; " << raw_branch_counters(div);
  ASSERT_TRUE(branch_efficiency(uni).has_value())
      << number_problems(uni)["branch efficiency"] << "; " << raw_branch_counters(uni);
  EXPECT_GE(*branch_efficiency(uni), 99) << raw_branch_counters(uni);
  EXPECT_GT(*div.get(metric::kSassApiBranchDivergent), 0) << raw_branch_counters(div);
  EXPECT_LE(*branch_efficiency(div), 97) << raw_branch_counters(div);
  EXPECT_LT(*branch_efficiency(div), *branch_efficiency(uni) - 2);
  // A copy has no branch instruction (predicated bounds check), or branches
  // that never diverge.
  if (branch_efficiency(copy))
    EXPECT_GE(*branch_efficiency(copy), 99) << raw_branch_counters(copy);
  else
    EXPECT_EQ(text::branches(copy), "no branch instructions") << raw_branch_counters(copy);
  EXPECT_NE(render_summary(div).find(text::branches(div)), std::string::npos);
  std::printf("BRANCH EFFICIENCY divergent %.1f%%, uniform %.1f%%, copy %s\n",
              *branch_efficiency(div), *branch_efficiency(uni), text::branches(copy).c_str());
}

// The raw branch counters of a plain copy, the uniform and the divergent
// kernel, from the range profiler (what kgate profile reads) and from
// CUPTI's SASS metrics API, one metric per child (patching is for good):
// the data to confirm or correct branch_efficiency on this GPU. Fails only
// when profiling itself fails.
TEST_F(ProfileGpu, BranchMetricsDiagnostic) {
  REQUIRE_GPU();
  const char* const sass_metrics[] = {
      "smsp__sass_inst_executed",
      "smsp__sass_inst_executed_op_branch",
      "smsp__sass_branch_targets",
      "smsp__sass_branch_targets_threads_uniform",
      "smsp__sass_branch_targets_threads_divergent",
  };
  nlohmann::json all;
  for (const char* entry : {"copy", "uniform", "divergent"}) {
    Case c{entry, 1L << 20};
    auto in_child =
        [&](const std::function<std::string(cuda::CudaDevice&, const LaunchOnce&)>& body)
        -> nlohmann::json {
      ChildOutcome child = run_in_child(
          [&]() -> std::string {
            auto compiled = compile_case(c);
            if (!compiled.ok()) return "error: " + compiled.error().message;
            auto loaded = load_case(c, *compiled);
            if (!loaded.ok()) return "error: " + loaded.error().message;
            cuda::CudaDevice& gpu = *loaded->gpu;
            LaunchOnce launch = [&] {
              return gpu.launch(*loaded->kernel, loaded->dims, loaded->args);
            };
            return body(gpu, launch);
          },
          300);
      EXPECT_TRUE(child.completed) << child.describe(300) << "\n" << child.err_tail;
      if (!child.completed) return "child " + child.describe(300);
      if (child.payload.rfind("error:", 0) == 0) return child.payload;
      return nlohmann::json::parse(child.payload);
    };
    nlohmann::json k;
    k["range_profiler"] = in_child([](cuda::CudaDevice& gpu, const LaunchOnce& launch) {
      auto counters = collect_counters(gpu.context(), gpu.device(), launch);
      if (!counters.ok()) return nlohmann::json("error: " + counters.error().message).dump();
      ProfileData p;
      p.metrics = counters->metrics;
      nlohmann::json j = nlohmann::json::object();
      for (const char* key :
           {metric::kBranchUniform, metric::kBranchDivergent, metric::kBranchTargets,
            metric::kBranchInstructions, metric::kBranchUniformPctReported, metric::kInstExecuted,
            metric::kSassInstExecuted, metric::kThreadsPerInstruction, metric::kLdBytesRequested,
            metric::kStBytesRequested, metric::kFp32Flops, metric::kL2HitSectors,
            metric::kL2MissSectors})
        if (auto v = p.get(key)) j[key] = *v;
      std::optional<double> eff = branch_efficiency(p);
      j["branch_efficiency"] = eff ? nlohmann::json(*eff) : nlohmann::json(nullptr);
      j["withheld"] = number_problems(p);
      return j.dump();
    });
    EXPECT_TRUE(k["range_profiler"].is_object()) << k["range_profiler"].dump();
    for (const char* m : sass_metrics)
      k["sass_api"][m] = in_child([m](cuda::CudaDevice& gpu, const LaunchOnce& launch) {
        auto r = count_sass_metric(gpu.context(), gpu.device(), launch, m);
        return (r.ok() ? nlohmann::json{{"sum", r->samples}, {"pcs", r->pcs.size()}}
                       : nlohmann::json{{"error", r.error().message}})
            .dump();
      });
    all[entry] = k;
  }
  std::printf("branch metrics diagnostic (n=2^20, 4096 blocks of 256 = 32768 warps):\n%s\n",
              all.dump(2).c_str());
}

TEST_F(ProfileGpu, TinyKernelIsLaunchBound) {
  REQUIRE_GPU();
  ProfileData p = profile_case({"copy", 32, 1, 32}, ceilings());
  EXPECT_EQ(classify(p).bottleneck, Bottleneck::kLaunchBound) << classify(p).evidence;
}

}  // namespace
}  // namespace kgate::profile
