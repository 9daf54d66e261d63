// On a GPU: the seeded misaligned shapes catch a CUDA candidate that skips
// rows whose length is not a multiple of 4, even when only an aligned
// declared shape is gated; the original passes them.
#include <gtest/gtest.h>

#include "agent/gate_evaluator.h"
#include "core/file_util.h"
#include "core/manifest_loader.h"
#include "runner/cuda/cuda_backend.h"
#include "runner/cuda/gpu_inventory.h"
#include "support/test_support.h"

namespace kgate {
namespace {

TEST(MisalignedGpu, ACudaCandidateWrongOnlyOnMisalignedRowsIsRejected) {
  auto inventory = cuda::gpu_inventory();
  if (!inventory.ok()) GTEST_SKIP() << inventory.error().message;
  testing::use_private_compile_cache();
  auto m = load_manifest(testing::example_dir());
  ASSERT_TRUE(m.ok()) << m.error().message;
  const Kernel& k = *m->kernel("rmsnorm");
  auto backend = make_backend("cuda");
  ASSERT_TRUE(backend.ok()) << backend.error().message;
  AbOptions o;
  o.seed = 11;
  o.shapes = {"decode-b64"};
  o.min_samples = 5;
  o.max_samples = 10;
  o.budget_s = 0.3;
  GateEvaluator evaluator(*m, k, **backend, o);
  Candidate original;
  original.tunables = k.implementation("cuda")->default_tunables();
  auto base = evaluator.baseline(original);
  ASSERT_TRUE(base.ok()) << base.error().message;
  ASSERT_TRUE(base->correct) << base->summary;
  nlohmann::json extra = evaluator.extra_checks();
  for (const auto& s : extra["shapes"]) EXPECT_EQ(s["status"], "checked") << extra.dump();

  auto text = read_file(m->root / k.implementation("cuda")->source);
  ASSERT_TRUE(text.ok());
  std::string source = *text;
  const std::string signature = "rmsnorm(__half* out";
  size_t body = source.find('{', source.find(signature));
  ASSERT_NE(body, std::string::npos);
  source.insert(body + 1, "\n  if (cols % 4 != 0) return;\n");
  Candidate bad = original;
  bad.source_text = source;
  auto e = evaluator.evaluate(original, bad);
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_FALSE(e->correct);
  EXPECT_NE(e->summary.find("wrong on misaligned-"), std::string::npos) << e->summary;
  EXPECT_NE(e->summary.find("cols="), std::string::npos) << e->summary;
}

}  // namespace
}  // namespace kgate
