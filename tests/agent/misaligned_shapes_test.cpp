// The seeded misaligned shapes: derived from the declared ones, small, odd or
// one off a block multiple or not a multiple of 4, the same for the same
// seed, and never one that breaks the manifest's invariants (buffer counts
// positive, launch expressions valid). On the host fixture, a candidate that
// drops the tail of a misaligned row is caught even when --shapes leaves the
// declared odd shape out.
#include <gtest/gtest.h>

#include "agent/gate_evaluator.h"
#include "agent/misaligned_shapes.h"
#include "core/manifest_loader.h"
#include "runner/host/host_backend.h"
#include "runner/launch_plan.h"
#include "support/test_support.h"

namespace kgate {
namespace {

std::filesystem::path sumsq() {
  return kgate::testing::fixtures_dir() / "agent" / "sumsq";
}

TEST(MisalignedShapes, SmallSeededAndMisaligned) {
  auto m = load_manifest(sumsq());
  ASSERT_TRUE(m.ok()) << m.error().message;
  const Kernel& k = *m->kernel("rmsnorm_f32");
  const Implementation& impl = *k.implementation("host");
  MisalignedShapes a = derive_misaligned_shapes(k, impl, 7);
  MisalignedShapes again = derive_misaligned_shapes(k, impl, 7);
  MisalignedShapes other = derive_misaligned_shapes(k, impl, 8);
  ASSERT_EQ(a.shapes.size(), 3u) << (a.skipped.empty() ? "" : a.skipped[0]);
  bool differs = false;
  for (size_t i = 0; i < a.shapes.size(); ++i) {
    EXPECT_EQ(a.shapes[i].variables, again.shapes[i].variables) << "the same seed, the same shapes";
    if (i < other.shapes.size()) differs |= a.shapes[i].variables != other.shapes[i].variables;
    EXPECT_EQ(a.shapes[i].name.rfind("misaligned-", 0), 0u);
    EXPECT_EQ(a.shapes[i].phase, "misaligned");
    auto plan = plan_launch(k, &impl, a.shapes[i], {});
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    EXPECT_LE(plan->total_bytes(), size_t{4} << 20);
    for (const auto& [name, v] : a.shapes[i].variables) {
      EXPECT_GE(v, 1) << name;
      EXPECT_LE(v, 4097) << name;
    }
  }
  EXPECT_TRUE(differs) << "another seed draws other sizes";
  // The first is odd in every dimension; none is a multiple of 4.
  for (const auto& [name, v] : a.shapes[0].variables) EXPECT_EQ(v % 2, 1) << name << "=" << v;
  for (const Shape& s : a.shapes)
    for (const auto& [name, v] : s.variables) EXPECT_NE(v % 4, 0) << s.name << " " << name;
  EXPECT_EQ(shape_variables_text(a.shapes[0]).find("cols="), 0u);
}

TEST(MisalignedShapes, KeepTheBaseShapesFloatVariables) {
  // Without them a float scalar naming "scale" has no value on the derived shape.
  auto m = load_manifest(kgate::testing::fixtures_dir() / "per-shape-scalars");
  ASSERT_TRUE(m.ok()) << m.error().message;
  const Kernel& k = *m->kernel("scaled");
  const Implementation& impl = *k.implementation("host");
  MisalignedShapes derived = derive_misaligned_shapes(k, impl, 7);
  ASSERT_FALSE(derived.shapes.empty()) << (derived.skipped.empty() ? "" : derived.skipped[0]);
  for (const Shape& s : derived.shapes) {
    ASSERT_EQ(s.float_variables.count("scale"), 1u) << s.name;
    auto plan = plan_launch(k, &impl, s, {});
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    EXPECT_DOUBLE_EQ(load_as_double(DType::kFloat32, plan->args[3].scalar.bytes, 0),
                     s.float_variables.at("scale"));
    EXPECT_NE(shape_variables_text(s).find("scale="), std::string::npos);
  }
}

TEST(MisalignedShapes, SkipsShapesThatBreakTheManifestsInvariants) {
  // A buffer whose count is only positive for cols above 4000: every
  // smaller derived shape is skipped, with the expression's complaint.
  testing::TempDir dir;
  std::filesystem::copy(sumsq(), dir / "repo", std::filesystem::copy_options::recursive);
  std::string text = testing::read(dir / "repo" / "kgate.json");
  const std::string from = R"("count": "cols"})";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), R"("count": "cols - 4000"})");
  testing::write(dir / "repo" / "kgate.json", text);
  auto m = load_manifest(dir / "repo");
  ASSERT_TRUE(m.ok()) << m.error().message;
  const Kernel& k = *m->kernel("rmsnorm_f32");
  MisalignedShapes d = derive_misaligned_shapes(k, *k.implementation("host"), 3);
  for (const Shape& s : d.shapes) EXPECT_GT(s.variables.at("cols"), 4000) << s.name;
  ASSERT_FALSE(d.skipped.empty());
  EXPECT_NE(d.skipped[0].find("expected at least 1"), std::string::npos) << d.skipped[0];
}

// Drops the tail of every row whose length is not a multiple of 8.
constexpr const char* kDropsTheTail = R"(#include <cmath>
#include <cstdint>
void rmsnorm_f32(float* out, const float* x, const float* weight, int32_t rows, int32_t cols,
                 float eps) {
  const int32_t whole = cols / 8 * 8;
  for (int32_t r = 0; r < rows; ++r) {
    const float* row = x + static_cast<int64_t>(r) * cols;
    float sum = 0;
    for (int32_t c = 0; c < cols; ++c) sum += row[c] * row[c];
    float scale = 1.0f / std::sqrt(sum / cols + eps);
    for (int32_t c = 0; c < whole; ++c) out[static_cast<int64_t>(r) * cols + c] = row[c] * scale * weight[c];
  }
}
)";

TEST(MisalignedShapes, AWrongCandidateIsRejectedWithTheShapesVariables) {
  testing::use_private_compile_cache();
  auto m = load_manifest(sumsq());
  ASSERT_TRUE(m.ok()) << m.error().message;
  const Kernel& k = *m->kernel("rmsnorm_f32");
  auto backend = make_host_backend();
  AbOptions o;
  o.seed = 7;
  o.shapes = {"rows-64"};  // the declared odd shape is not gated
  o.min_samples = 3;
  o.max_samples = 5;
  o.budget_s = 0.2;
  GateEvaluator evaluator(*m, k, *backend, o);
  Candidate original;
  original.tunables = k.implementation("host")->default_tunables();
  auto base = evaluator.baseline(original);
  ASSERT_TRUE(base.ok()) << base.error().message;
  ASSERT_TRUE(base->correct) << base->summary;
  Candidate bad = original;
  bad.source_text = kDropsTheTail;
  auto e = evaluator.evaluate(original, bad);
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_FALSE(e->correct);
  EXPECT_NE(e->summary.find("wrong on misaligned-"), std::string::npos) << e->summary;
  EXPECT_NE(e->summary.find("cols="), std::string::npos) << e->summary;
  EXPECT_NE(e->summary.find("seed 7"), std::string::npos) << e->summary;
  // The record of the check: the seed and each shape's status.
  nlohmann::json extra = evaluator.extra_checks();
  EXPECT_EQ(extra["seed"], 7);
  ASSERT_EQ(extra["shapes"].size(), 3u) << extra.dump();
  for (const auto& s : extra["shapes"]) EXPECT_EQ(s["status"], "checked") << extra.dump();
}

}  // namespace
}  // namespace kgate
