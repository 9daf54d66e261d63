// NVRTC compiles what nvcc compiles: kernels that use cooperative groups
// (thread-block clusters), whose headers CUDA 13 keeps in include/cccl; and
// what nvcc's implicit environment gives kernels (uint, INFINITY, M_PI,
// assert, the C headers), through kgate's NVRTC prelude. No GPU needed, only
// the toolkit.
#include <gtest/gtest.h>

#include <string>

#include "runner/cuda/cuda_toolkit.h"
#include "runner/cuda/raw_compile.h"
#include "runner/launch_trace.h"
#include "support/test_support.h"

namespace kgate {
namespace {

TEST(NvrtcCompile, AClusterKernelWithCooperativeGroupsCompiles) {
  cuda::RawCompileInput in;
  in.source = R"(
#include <cooperative_groups.h>
extern "C" __global__ void __cluster_dims__(2, 1, 1) pair_sum(float* out, const float* in) {
  namespace cg = cooperative_groups;
  __shared__ float mine;
  if (threadIdx.x == 0) mine = in[blockIdx.x];
  cg::this_cluster().sync();
  float peer = *cg::this_cluster().map_shared_rank(&mine, cg::this_cluster().block_rank() ^ 1);
  cg::this_cluster().sync();
  if (threadIdx.x == 0) out[blockIdx.x] = mine + peer;
}
)";
  in.display_name = "pair_sum.cu";
  in.arch = "sm_90";
  auto out = cuda::compile_with_nvrtc(in);
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_TRUE(out->ok) << out->log;
  EXPECT_FALSE(out->cubin.empty());
}

// vLLM's and FlashInfer's norms reduce with CUB's block primitives; CUB is
// in include/cccl too, and its block headers compile under NVRTC.
TEST(NvrtcCompile, ACubBlockReduceKernelCompiles) {
  cuda::RawCompileInput in;
  in.source = R"(
#include <cub/block/block_reduce.cuh>
#include <cuda_bf16.h>
template <int kThreads>
__global__ void sum_of_squares(float* out, const __nv_bfloat16* in, int n) {
  using Reduce = cub::BlockReduce<float, kThreads>;
  __shared__ typename Reduce::TempStorage storage;
  float mine = 0.f;
  for (int i = threadIdx.x; i < n; i += kThreads) {
    float x = __bfloat162float(in[blockIdx.x * n + i]);
    mine += x * x;
  }
  float total = Reduce(storage).Reduce(mine, cuda::std::plus<float>{});
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}
)";
  in.display_name = "sum_of_squares.cu";
  in.entry = "sum_of_squares<256>";
  in.arch = "sm_90";
  auto out = cuda::compile_with_nvrtc(in);
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_TRUE(out->ok) << out->log;
  EXPECT_FALSE(out->cubin.empty());
  EXPECT_NE(out->entry_symbol.find("sum_of_squares"), std::string::npos) << out->entry_symbol;
}

// Both compilers, on the same input; nvcc where it is installed.
std::vector<std::pair<std::string, cuda::RawCompileOutput>> compile_with_both(
    const cuda::RawCompileInput& in, const testing::TempDir& work) {
  std::vector<std::pair<std::string, cuda::RawCompileOutput>> out;
  auto nvrtc = cuda::compile_with_nvrtc(in);
  EXPECT_TRUE(nvrtc.ok()) << nvrtc.error().message;
  if (nvrtc.ok()) out.emplace_back("nvrtc", *nvrtc);
  if (cuda::nvcc_path().ok()) {
    auto nvcc = cuda::compile_with_nvcc(in, work / "nvcc");
    EXPECT_TRUE(nvcc.ok()) << nvcc.error().message;
    if (nvcc.ok()) out.emplace_back("nvcc", *nvcc);
  }
  return out;
}

// What public kernels written for nvcc use without a second thought (the
// GPT-2 kernels of a public project, an SGEMM tutorial): each line failed
// under NVRTC before kgate's prelude ("identifier "uint" is undefined",
// "cannot open source file "assert.h"").
TEST(NvrtcCompile, NvccsImplicitEnvironmentCompilesWithBothCompilers) {
  cuda::RawCompileInput in;
  in.source = R"(
#include <assert.h>
#include <cassert>
#include <float.h>
#include <cfloat>
#include <math.h>
#include <cmath>
#include <limits.h>
#include <climits>
#include <stdint.h>
#include <cstdint>
#include <stdio.h>
#include <cstdio>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
extern "C" __global__ void uses_all(float* out, const float* x, uint n) {
  uint i = blockIdx.x * blockDim.x + threadIdx.x;
  assert(n > 0);
  if (i >= n) return;
  float maxval = -INFINITY;
  float bad = NAN;
  double pi = M_PI;
  float s = (float)M_SQRT1_2 + (float)M_2_SQRTPI + (float)M_LN2;
  int64_t big = INT_MAX;
  std::uint32_t small = UINT_MAX;
  ushort h = 1;
  if (isnan(bad) && x[i] > maxval && x[i] < FLT_MAX && DBL_EPSILON > 0 && HUGE_VALF > 0)
    out[i] = std::sqrt(fabsf(x[i])) * (float)pi * s + (float)(big - small) + h;
  if (i == 0 && x[0] == 12345.f) printf("x[0] = %f\n", x[0]);
}
)";
  in.display_name = "gpt2_kernels.cu";
  in.arch = "sm_90";
  in.entry = "uses_all";
  testing::TempDir work;
  auto results = compile_with_both(in, work);
  ASSERT_FALSE(results.empty());
  for (const auto& [compiler, out] : results) {
    EXPECT_TRUE(out.ok) << compiler << ":\n" << out.log;
    EXPECT_EQ(out.entry_symbol, "uses_all") << compiler;
  }
}

// NVRTC's assert, kept by the prelude and by <assert.h>, calls __assertfail
// (a trap with the message, CUDA_ERROR_ASSERT at the launch), as nvcc's does;
// NDEBUG, on the command line or defined before <assert.h>, removes it. The
// cubin holds the failed expression's text exactly when the assert is there.
TEST(NvrtcCompile, AssertTrapsOnTheDeviceUnlessNdebug) {
  auto compile = [](const std::string& prefix, std::vector<std::string> defines) {
    cuda::RawCompileInput in;
    in.source = prefix +
                "#include <assert.h>\n"
                "extern \"C\" __global__ void k(int* out, int n) {\n"
                "  assert(n > 41 && \"kgate_assert_marker\");\n"
                "  out[0] = n;\n"
                "}\n";
    in.display_name = "assert.cu";
    in.arch = "sm_90";
    in.entry = "k";
    in.defines = std::move(defines);
    auto out = cuda::compile_with_nvrtc(in);
    EXPECT_TRUE(out.ok() && out->ok) << (out.ok() ? out->log : out.error().message);
    return out.ok() ? out->cubin : std::string();
  };
  EXPECT_NE(compile("", {}).find("kgate_assert_marker"), std::string::npos);
  EXPECT_EQ(compile("", {"NDEBUG"}).find("kgate_assert_marker"), std::string::npos);
  EXPECT_EQ(compile("#define NDEBUG\n", {}).find("kgate_assert_marker"), std::string::npos);
}

// A template-id entry is instantiated with the tunables' values by both
// compilers, and both find the same symbol for it: NVRTC through its name
// expression, nvcc through the probe kgate appends. The kernel is the
// reduction of NVIDIA's CUDA samples in shape: template <class T, unsigned int
// blockSize, bool nIsPow2>, inside a namespace.
TEST(NvrtcCompile, ATemplatedKernelIsFoundForEveryTunableValue) {
  cuda::RawCompileInput in;
  in.source = R"(
namespace samples {
template <class T, unsigned int blockSize, bool nIsPow2>
__global__ void reduce6(T* g_idata, T* g_odata, unsigned int n) {
  if (threadIdx.x == 0) g_odata[blockIdx.x] = nIsPow2 ? g_idata[0] * blockSize : T(n);
}
}  // namespace samples
template <int BLOCK> __global__ void uses_its_own_name(float* out) { out[0] = BLOCK; }
)";
  in.display_name = "reduction_kernel.cu";
  in.arch = "sm_80";
  testing::TempDir work;
  for (int block : {512, 256, 64}) {
    in.entry = "samples::reduce6<float, " + std::to_string(block) + " * 1, (" +
               std::to_string(block) + " > 128)>";
    std::string want = "void samples::reduce6<float, " + std::to_string(block) + "u, " +
                       (block > 128 ? "true" : "false") + ">(float*, float*, unsigned int)";
    auto results = compile_with_both(in, work);
    ASSERT_FALSE(results.empty());
    for (const auto& [compiler, out] : results) {
      ASSERT_TRUE(out.ok) << compiler << ":\n" << out.log;
      EXPECT_EQ(demangle(out.entry_symbol), want) << compiler << ": " << out.entry_symbol;
      EXPECT_EQ(out.entry_symbol, results.front().second.entry_symbol) << compiler;
    }
  }
  in.entry = "uses_its_own_name<128>";
  for (const auto& [compiler, out] : compile_with_both(in, work)) {
    ASSERT_TRUE(out.ok) << compiler << ":\n" << out.log;
    EXPECT_EQ(demangle(out.entry_symbol), "void uses_its_own_name<128>(float*)") << compiler;
  }
}

// A plain name need not be extern "C": a C++ kernel (NVIDIA's vectorAdd
// sample is one) is found by its name; an overloaded name is refused.
TEST(NvrtcCompile, APlainCppKernelIsFoundAndAnOverloadIsRefused) {
  cuda::RawCompileInput in;
  in.source = R"(
__global__ void vectorAdd(const float* A, const float* B, float* C, int numElements) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < numElements) C[i] = A[i] + B[i] + 0.0f;
}
__global__ void twice(float* a) { a[0] *= 2; }
__global__ void twice(double* a) { a[0] *= 2; }
)";
  in.display_name = "vectorAdd.cu";
  in.arch = "sm_90";
  in.entry = "vectorAdd";
  testing::TempDir work;
  for (const auto& [compiler, out] : compile_with_both(in, work)) {
    ASSERT_TRUE(out.ok) << compiler << ":\n" << out.log;
    EXPECT_EQ(out.entry_symbol, "_Z9vectorAddPKfS0_Pfi") << compiler;
  }
  in.entry = "twice";
  for (const auto& [compiler, out] : compile_with_both(in, work)) {
    EXPECT_FALSE(out.ok) << compiler;
    EXPECT_NE(out.log.find("twice"), std::string::npos) << compiler << ":\n" << out.log;
  }
}

}  // namespace
}  // namespace kgate
