// On a GPU: the example workload (examples/llm-ops/workload) traced by
// `kgate extract`, and candidates validated inside it. Each test builds the
// workload (nvcc + cuBLAS of the machine's toolkit) in a copy of the example.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <set>

#include "agent/in_model_check.h"
#include "core/file_util.h"
#include "core/manifest_loader.h"
#include "runner/cuda/gpu_inventory.h"
#include "support/test_support.h"

namespace kgate {
namespace {

using json = nlohmann::json;

#define REQUIRE_GPU()                                               \
  do {                                                              \
    auto inventory = cuda::gpu_inventory();                         \
    if (!inventory.ok()) GTEST_SKIP() << inventory.error().message; \
  } while (0)

class InModelGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("KGATE_CACHE_DIR", (scratch_ / "cache").c_str(), 1);
    setenv("KGATE_LOCK_DIR", (scratch_ / "locks").c_str(), 1);
    repo_ = scratch_ / "llm-ops";
    ASSERT_TRUE(copy_tree(testing::example_dir(), repo_).ok());
    std::filesystem::remove_all(repo_ / "workload" / "build");
  }
  Manifest load() {
    auto m = load_manifest(repo_);
    EXPECT_TRUE(m.ok()) << m.error().message;
    return m.ok() ? std::move(m.value()) : Manifest{};
  }
  testing::TempDir scratch_;
  std::filesystem::path repo_;
};

TEST_F(InModelGpuTest, ExtractFindsTheExampleKernelsInBothPhases) {
  REQUIRE_GPU();
  auto out = scratch_ / "tasks.json";
  auto r = testing::run_kgate({"extract", "--repo", repo_.string(), "--json", out.string(),
                               "--state-dir", (scratch_ / "state").string()},
                              "", 600);
  std::cout << r.out << r.err.substr(r.err.size() > 4000 ? r.err.size() - 4000 : 0);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json tasks = json::parse(testing::read(out));
  std::cout << "total traced GPU time: " << tasks["total_ns"].get<double>() * 1e-6 << " ms in "
            << tasks["launches"] << " launches\n";
  EXPECT_TRUE(tasks["nvtx"].get<bool>());
  uint64_t phase_ns = 0, kernel_ns = 0;
  double share = 0;
  std::map<std::string, std::set<std::string>> found;
  bool cublas_listed = false;
  for (const json& p : tasks["phases"]) {
    phase_ns += p["total_ns"].get<uint64_t>();
    share += p["share"].get<double>();
    for (const json& k : p["kernels"]) {
      kernel_ns += k["total_ns"].get<uint64_t>();
      if (k["kernel"].is_string()) found[p["phase"]].insert(k["kernel"]);
      // cuBLAS names its GEMMs "*gemm*" up to CUDA 12 and "nvjet_*" from CUDA 13 on.
      const std::string name = k["name"].get<std::string>();
      cublas_listed |= k["kernel"].is_null() &&
                       (name.find("gemm") != std::string::npos || name.rfind("nvjet_", 0) == 0);
    }
  }
  EXPECT_EQ(phase_ns, tasks["total_ns"].get<uint64_t>());
  EXPECT_EQ(kernel_ns, tasks["total_ns"].get<uint64_t>());
  EXPECT_NEAR(share, 1.0, 1e-9);
  EXPECT_TRUE(cublas_listed) << "cuBLAS GEMMs should be listed as not in the manifest";
  for (const char* phase : {"prefill", "decode"})
    for (const char* k :
         {"rmsnorm", "fused_add_rmsnorm", "rotary_embedding", "silu_and_mul", "gemv", "softmax"})
      EXPECT_TRUE(found[phase].count(k)) << k << " not found in " << phase;
}

// Correct for one row (all the narrow shape set checks), wrong for more:
// every row is scaled by the first row's RMS.
const char* kFirstRowRmsnorm = R"~(#include <cuda_fp16.h>
#include "block_reduce.cuh"
#ifndef BLOCK
#define BLOCK 256
#endif
extern "C" __global__ void rmsnorm(__half* out, const __half* x, const __half* weight, int rows,
                                   int cols, float eps) {
  const long long row = blockIdx.x;
  float sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += BLOCK) {
    float v = __half2float(x[c]);  // row 0 only
    sum += v * v;
  }
  sum = block_sum<BLOCK>(sum);
  float scale = rsqrtf(sum / cols + eps);
  for (int c = threadIdx.x; c < cols; c += BLOCK)
    out[row * cols + c] = __float2half(__half2float(x[row * cols + c]) * scale * __half2float(weight[c]));
}
)~";

TEST_F(InModelGpuTest, AWrongCandidateThatPassesANarrowShapeSetIsCaughtInModel) {
  REQUIRE_GPU();
  // Isolated, on the decode-b1 shape only: it passes.
  auto narrow = scratch_ / "narrow";
  ASSERT_TRUE(copy_tree(repo_, narrow).ok());
  testing::write(narrow / "csrc" / "rmsnorm.cu", kFirstRowRmsnorm);
  auto isolated = testing::run_kgate({"run", narrow.string(), "--kernel", "rmsnorm", "--shape",
                                      "decode-b1", "--backend", "cuda", "--seed", "3"});
  std::cout << isolated.out;
  ASSERT_EQ(isolated.exit_code, 0) << "the narrow shape set should pass: " << isolated.err;
  // In the workload (prefill normalizes 256 rows at once): caught.
  Manifest m = load();
  WorkloadValidationOptions options;
  options.runs = 2;
  auto v = validate_candidate_in_workload(m, *m.kernel("rmsnorm"), kFirstRowRmsnorm, json::object(),
                                          options, scratch_ / "state");
  ASSERT_TRUE(v.ok()) << v.error().message;
  std::cout << v->to_json().dump(2).substr(0, 3000) << "\n";
  EXPECT_EQ(v->status, "output_changed") << v->reason;
  EXPECT_FALSE(v->proposable());
}

TEST_F(InModelGpuTest, ACorrectFasterCandidatePassesWithItsEndToEndGain) {
  REQUIRE_GPU();
  Manifest m = load();
  const Kernel* gemv = m.kernel("gemv");
  ASSERT_NE(gemv, nullptr);
  const Implementation* impl = gemv->implementation("cuda");
  // Unrolling the K loop keeps each thread's summation order: the same
  // numbers, more loads in flight (the LM head is most of decode's GEMV time).
  const Tunable* unroll = nullptr;
  for (const Tunable& t : impl->tunables)
    if (t.name == "UNROLL") unroll = &t;
  if (!unroll) GTEST_SKIP() << "gemv declares no UNROLL tunable any more";
  int64_t best = *std::max_element(unroll->values.begin(), unroll->values.end());
  auto source = read_file(m.root / impl->source);
  ASSERT_TRUE(source.ok());
  WorkloadValidationOptions options;
  options.runs = 3;
  auto v = validate_candidate_in_workload(m, *gemv, *source, {{"UNROLL", best}}, options,
                                          scratch_ / "state");
  ASSERT_TRUE(v.ok()) << v.error().message;
  std::cout << v->to_json().dump(2).substr(0, 3000) << "\n"
            << workload_validation_markdown(v->to_json());
  EXPECT_TRUE(v->outputs.matched) << v->outputs.summary();
  EXPECT_EQ(v->status, "passed") << v->reason;
  for (const PhaseLatency& p : v->phases) {
    if (p.phase == "decode") {
      EXPECT_LT(p.ratio.estimate, 1.0);
    }
  }
}

}  // namespace
}  // namespace kgate
