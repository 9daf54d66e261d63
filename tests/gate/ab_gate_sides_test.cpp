// Each side of a gate is measured as its revision declares it (host
// backend): the base is planned from the base's manifest entry, is timed
// only when it takes the same inputs as the head, and what goes wrong with
// it (wrong results, a crash, a memory rule broken) is reported as the
// base's, never held against the head. Before, the base ran with the head's
// arguments and launch, a crashing base failed the gate as a harness error
// (exit 3), and the base's own check was computed and never reported.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/manifest_loader.h"
#include "gate/ab_gate.h"
#include "runner/host/host_backend.h"
#include "support/test_support.h"

namespace kgate {
namespace {

const char* kGood = R"(#include <cmath>
#include <cstdint>
void scale(float* out, const float* x, int32_t n) {
  for (int32_t i = 0; i < n; ++i) out[i] = std::sqrt(x[i] * x[i] + 1.0f) * 2.0f;
}
)";

// Three times the work of kGood, same result.
const char* kSlow = R"(#include <cmath>
#include <cstdint>
void scale(float* out, const float* x, int32_t n) {
  for (int p = 0; p < 3; ++p) {
    for (int32_t i = 0; i < n; ++i) out[i] = std::sqrt(x[i] * x[i] + 1.0f) * 2.0f;
    asm volatile("" : : "r"(out) : "memory");
  }
}
)";

const char* kWrong = R"(#include <cstdint>
void scale(float* out, const float* x, int32_t n) {
  for (int32_t i = 0; i < n; ++i) out[i] = x[i];
}
)";

const char* kCrash = R"(#include <cstdint>
void scale(float* out, const float* x, int32_t n) {
  volatile float* nowhere = nullptr;
  *nowhere = x[0] + out[0] + float(n);
}
)";

const char* kPastEnd = R"(#include <cmath>
#include <cstdint>
void scale(float* out, const float* x, int32_t n) {
  for (int32_t i = 0; i < n; ++i) out[i] = std::sqrt(x[i] * x[i] + 1.0f) * 2.0f;
  out[n] = 0.0f;
}
)";

const char* kReference = R"(#include <cmath>
#include <cstdint>
void scale_ref(double* out, const float* x, int32_t n) {
  for (int32_t i = 0; i < n; ++i) out[i] = std::sqrt(double(x[i]) * x[i] + 1.0) * 2.0;
}
)";

nlohmann::json manifest_json() {
  return nlohmann::json::parse(R"({
    "kernels": [{
      "name": "scale",
      "impl": {"host": {"source": "scale.cpp", "entry": "scale"}},
      "args": [
        {"name": "out", "type": "float32*", "count": "n", "role": "output"},
        {"name": "x",   "type": "float32*", "count": "n"},
        {"name": "n",   "type": "int32",    "value": "n"}
      ],
      "shapes": [{"name": "small", "phase": "decode", "n": 8192}],
      "reference": {"source": "scale_ref.cpp", "entry": "scale_ref"},
      "tolerance": {"atol": 1e-4, "rtol": 1e-4},
      "timing": {"warmup": 2, "time_limit_s": 20}
    }],
    "gate": {"max_regression": 0.10, "min_improvement": 0.10, "budget_s": 0.2}
  })");
}

class GateSides : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { testing::use_private_compile_cache(); }

  Manifest write(const std::string& name, const nlohmann::json& manifest, const std::string& kernel,
                 const std::string& reference = kReference) {
    std::filesystem::path root = dir / name;
    testing::write(root / "kgate.json", manifest.dump(2));
    testing::write(root / "scale.cpp", kernel);
    testing::write(root / "scale_ref.cpp", reference);
    auto m = load_manifest(root);
    EXPECT_TRUE(m.ok()) << m.error().message;
    return m.ok() ? *m : Manifest{};
  }

  KernelGate gate(const std::string& base_kernel, const std::string& head_kernel,
                  const nlohmann::json& base_manifest = manifest_json(),
                  const nlohmann::json& head_manifest = manifest_json(),
                  const std::string& head_reference = kReference) {
    base = write("base", base_manifest, base_kernel);
    head = write("head", head_manifest, head_kernel, head_reference);
    GateSources sources;
    sources.head.root = head.root;
    sources.base = GateSide{};
    sources.base->kernel = &base.kernels.at(0);
    sources.base->root = base.root;
    GateOptions options;
    options.seed = 5;
    auto gated = gate_kernel(head, head.kernels.at(0), *backend, sources, options);
    EXPECT_TRUE(gated.ok()) << gated.error().message;
    return gated.ok() ? *gated : KernelGate{};
  }

  testing::TempDir dir;
  std::unique_ptr<Backend> backend = make_host_backend();
  Manifest base, head;
};

TEST_F(GateSides, AHeadThatAddsABufferWithoutSayingSoIsCheckedNotTimed) {
  nlohmann::json with_bias = manifest_json();
  with_bias["kernels"][0]["args"].push_back(
      {{"name", "bias"}, {"type", "float32*"}, {"count", "n"}});
  std::string kernel = kGood, reference = kReference;
  kernel.replace(kernel.find("int32_t n)"), 10, "int32_t n, const float* bias)");
  reference.replace(reference.find("int32_t n)"), 10, "int32_t n, const float* bias)");
  KernelGate g = gate(kGood, kernel, manifest_json(), with_bias, reference);
  ASSERT_EQ(g.shapes.size(), 1u);
  EXPECT_EQ(g.shapes[0].verdict, Verdict::kNew);
  EXPECT_EQ(g.shapes[0].reason.rfind("not timed against the base: the head's buffer 'bias' has "
                                     "no match in the base (renamed?",
                                     0),
            0u)
      << g.shapes[0].reason;
  EXPECT_EQ(g.shapes[0].rounds, 0);
  EXPECT_TRUE(g.passed());
}

TEST_F(GateSides, ABufferOnlyTheHeadTakesIsTimedWhenDeclaredOneSided) {
  nlohmann::json with_bias = manifest_json();
  with_bias["kernels"][0]["args"].push_back(
      {{"name", "bias"}, {"type", "float32*"}, {"count", "n"}, {"one_sided", true}});
  std::string kernel = kSlow, reference = kReference;
  kernel.replace(kernel.find("int32_t n)"), 10, "int32_t n, const float* bias)");
  reference.replace(reference.find("int32_t n)"), 10, "int32_t n, const float* bias)");
  KernelGate g = gate(kGood, kernel, manifest_json(), with_bias, reference);
  ASSERT_EQ(g.shapes.size(), 1u);
  EXPECT_EQ(g.shapes[0].verdict, Verdict::kSlower) << g.shapes[0].reason;
  EXPECT_GT(g.shapes[0].rounds, 0);
  ASSERT_FALSE(g.notes.empty());
  EXPECT_EQ(g.notes.back(),
            "the kernel's parameters changed: the head adds parameter 'bias' (float32*); each "
            "side is launched with its own, on the same buffers");
}

// The pull requests a library really merges: a kernel that takes a new
// scalar (candle's rmsnorm got a block_size), or its parameters in another
// order. Both sides take the same buffers: timed like any change, and a
// slowdown that comes with the new signature is caught.
TEST_F(GateSides, AHeadThatAddsAScalarParameterIsTimedAndItsSlowdownCaught) {
  nlohmann::json with_block = manifest_json();
  with_block["kernels"][0]["args"].push_back(
      {{"name", "block_size"}, {"type", "int32"}, {"value", "n < 1024 ? 32 : 1024"}});
  std::string kernel = kSlow;
  kernel.replace(kernel.find("int32_t n)"), 10, "int32_t n, int32_t block_size)");
  std::string reference = kReference;
  reference.replace(reference.find("int32_t n)"), 10, "int32_t n, int32_t block_size)");
  KernelGate g = gate(kGood, kernel, manifest_json(), with_block, reference);
  ASSERT_EQ(g.shapes.size(), 1u);
  const ShapeGate& s = g.shapes[0];
  EXPECT_EQ(s.verdict, Verdict::kSlower) << s.reason;
  EXPECT_TRUE(s.fails);
  EXPECT_GT(s.interval.estimate, 2.0);
  EXPECT_FALSE(g.passed());
  ASSERT_FALSE(g.notes.empty());
  EXPECT_EQ(g.notes.back(),
            "the kernel's parameters changed: the head adds parameter 'block_size' (int32); each "
            "side is launched with its own, on the same buffers");
}

TEST_F(GateSides, AHeadThatReordersItsParametersIsTimed) {
  nlohmann::json reordered = manifest_json();
  auto& args = reordered["kernels"][0]["args"];
  nlohmann::json n = args[2];
  args.erase(2);
  args.insert(args.begin(), n);
  const std::string kernel = R"(#include <cmath>
#include <cstdint>
void scale(int32_t n, float* out, const float* x) {
  for (int32_t i = 0; i < n; ++i) out[i] = std::sqrt(x[i] * x[i] + 1.0f) * 2.0f;
}
)";
  const std::string reference = R"(#include <cmath>
#include <cstdint>
void scale_ref(int32_t n, double* out, const float* x) {
  for (int32_t i = 0; i < n; ++i) out[i] = std::sqrt(double(x[i]) * x[i] + 1.0) * 2.0;
}
)";
  KernelGate g = gate(kGood, kernel, manifest_json(), reordered, reference);
  ASSERT_EQ(g.shapes.size(), 1u);
  EXPECT_NE(g.shapes[0].verdict, Verdict::kNew) << g.shapes[0].reason;
  EXPECT_TRUE(g.shapes[0].base_check && g.shapes[0].base_check->passed);
  EXPECT_GT(g.shapes[0].rounds, 0);
  ASSERT_FALSE(g.notes.empty());
  EXPECT_NE(g.notes.back().find("reorders the parameters"), std::string::npos) << g.notes.back();
}

TEST_F(GateSides, ABufferTheHeadDropsIsStillGivenToTheBase) {
  nlohmann::json with_unused = manifest_json();
  with_unused["kernels"][0]["args"].push_back(
      {{"name", "unused"}, {"type", "float32*"}, {"count", "n"}});
  std::string base_kernel = kGood;
  base_kernel.replace(base_kernel.find("int32_t n)"), 10, "int32_t n, const float* unused)");
  std::string base_reference = kReference;
  base_reference.replace(base_reference.find("int32_t n)"), 10, "int32_t n, const float* unused)");
  base = write("base", with_unused, base_kernel, base_reference);
  head = write("head", manifest_json(), kGood);
  GateSources sources;
  sources.head.root = head.root;
  sources.base = GateSide{};
  sources.base->kernel = &base.kernels.at(0);
  sources.base->root = base.root;
  GateOptions options;
  options.seed = 5;
  auto gated = gate_kernel(head, head.kernels.at(0), *backend, sources, options);
  ASSERT_TRUE(gated.ok()) << gated.error().message;
  ASSERT_EQ(gated->shapes.size(), 1u);
  EXPECT_NE(gated->shapes[0].verdict, Verdict::kNew) << gated->shapes[0].reason;
  EXPECT_GT(gated->shapes[0].rounds, 0);
  EXPECT_NE(gated->notes.back().find("drops 'unused'"), std::string::npos) << gated->notes.back();
}

TEST_F(GateSides, AShapeWhoseVariablesChangedIsCheckedNotTimed) {
  nlohmann::json smaller = manifest_json();
  smaller["kernels"][0]["shapes"][0]["n"] = 4096;
  KernelGate g = gate(kGood, kGood, smaller);
  ASSERT_EQ(g.shapes.size(), 1u);
  EXPECT_EQ(g.shapes[0].verdict, Verdict::kNew);
  EXPECT_EQ(g.shapes[0].reason,
            "not timed against the base: the base's shape 'small' has n=4096, the head's n=8192");
}

TEST_F(GateSides, DroppedAndAddedShapesAreNoted) {
  nlohmann::json before = manifest_json(), after = manifest_json();
  before["kernels"][0]["shapes"].push_back({{"name", "large"}, {"n", 65536}});
  before["kernels"][0]["shapes"].push_back({{"name", "odd"}, {"n", 1001}});
  after["kernels"][0]["shapes"].push_back({{"name", "tiny"}, {"n", 3}});
  KernelGate g = gate(kGood, kGood, before, after);
  ASSERT_EQ(g.notes.size(), 2u) << nlohmann::json(g.notes).dump();
  EXPECT_EQ(g.notes[0], "head drops shapes large and odd of the base: no longer checked");
  EXPECT_EQ(g.notes[1], "head adds shape tiny: checked, not timed against the base");
  ASSERT_EQ(g.shapes.size(), 2u);
  EXPECT_EQ(g.shapes[1].shape, "tiny");
  EXPECT_EQ(g.shapes[1].reason, "not timed against the base: the base has no shape 'tiny'");
  EXPECT_NE(g.to_json().dump().find("head drops shapes large and odd"), std::string::npos);
}

TEST_F(GateSides, AnIncorrectBaseIsReportedAndItsSpeedNotHeldAgainstTheHead) {
  // The head fixes a wrong, fast base and is slower for it: reported, not failed.
  KernelGate g = gate(kWrong, kSlow);
  ASSERT_EQ(g.shapes.size(), 1u);
  const ShapeGate& s = g.shapes[0];
  ASSERT_TRUE(s.base_check.has_value());
  EXPECT_FALSE(s.base_check->passed);
  EXPECT_EQ(s.base_note.rfind("the base is itself incorrect on this shape (against the head's "
                              "oracle): element 0 of 'out'",
                              0),
            0u)
      << s.base_note;
  EXPECT_GT(s.rounds, 0);
  EXPECT_FALSE(s.fails) << s.reason;
  EXPECT_TRUE(g.passed());
  EXPECT_NE(s.to_json().dump().find("base_note"), std::string::npos);
}

TEST_F(GateSides, ACrashingBaseIsTheBasesFailureNotTheHeads) {
  KernelGate g = gate(kCrash, kGood);
  ASSERT_EQ(g.shapes.size(), 1u);
  const ShapeGate& s = g.shapes[0];
  EXPECT_EQ(s.verdict, Verdict::kNew) << s.reason;
  EXPECT_EQ(s.reason, "not timed against the base: the base fails on this shape");
  EXPECT_EQ(s.base_note.rfind("the base crashed during base check (killed by signal 11", 0), 0u)
      << s.base_note;
  EXPECT_TRUE(s.check.passed);
  EXPECT_FALSE(s.fails);
  EXPECT_TRUE(g.passed());
}

TEST_F(GateSides, ABaseThatWritesPastTheEndIsNotTimed) {
  KernelGate g = gate(kPastEnd, kGood);
  ASSERT_EQ(g.shapes.size(), 1u);
  const ShapeGate& s = g.shapes[0];
  EXPECT_EQ(s.verdict, Verdict::kNew);
  EXPECT_EQ(s.base_note, "the base wrote 4 bytes past the end of 'out'");
  EXPECT_EQ(s.rounds, 0);
  EXPECT_TRUE(g.passed());
}

TEST_F(GateSides, AHeadThatWritesPastTheEndIsIncorrect) {
  KernelGate g = gate(kGood, kPastEnd);
  ASSERT_EQ(g.shapes.size(), 1u);
  EXPECT_EQ(g.shapes[0].verdict, Verdict::kIncorrect);
  EXPECT_EQ(g.shapes[0].reason, "wrote 4 bytes past the end of 'out'");
  EXPECT_FALSE(g.passed());
}

}  // namespace
}  // namespace kgate
