// NVRTC compiles what nvcc compiles: kernels that use cooperative groups
// (thread-block clusters), whose headers CUDA 13 keeps in include/cccl. No GPU
// needed, only the toolkit.
#include <gtest/gtest.h>

#include <string>

#include "runner/cuda/raw_compile.h"

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

}  // namespace
}  // namespace kgate
