// When the base and the head of a change can be timed against each other on
// a shape (one set of buffers matched by name, each side its own scalars and
// parameters), and the plain reason when they cannot.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/manifest_loader.h"
#include "runner/launch_plan.h"
#include "runner/side_compatibility.h"
#include "support/test_support.h"

namespace kgate {
namespace {

class SideCompatibility : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::write(dir / "k.cu", "// kernel\n");
    testing::write(dir / "r.cpp", "// reference\n");
  }
  nlohmann::json kernel() {
    return {{"name", "scale"},
            {"impl",
             {{"cuda",
               {{"source", "k.cu"},
                {"entry", "scale"},
                {"launch", {{"grid", {"(n + 255) / 256"}}, {"block", {256}}}}}}}},
            {"args",
             {{{"name", "out"}, {"type", "float32*"}, {"count", "n"}, {"role", "output"}},
              {{"name", "x"}, {"type", "float32*"}, {"count", "n"}},
              {{"name", "n"}, {"type", "int32"}, {"value", "n"}},
              {{"name", "k"}, {"type", "float32"}, {"value", 1.5}}}},
            {"shapes", {{{"name", "s"}, {"n", 1000}}}},
            {"reference", {{"source", "r.cpp"}, {"entry", "r"}}}};
  }
  Manifest load(const nlohmann::json& k) {
    auto m = parse_manifest(nlohmann::json{{"kernels", {k}}}.dump(), "kgate.json", dir.path());
    EXPECT_TRUE(m.ok()) << m.error().message;
    return m.ok() ? *m : Manifest{};
  }
  std::string difference(const nlohmann::json& head_json, const nlohmann::json& base_json) {
    head = load(head_json);
    base = load(base_json);
    const Kernel &h = head.kernels.at(0), &b = base.kernels.at(0);
    const Shape* base_shape = b.shape("s");
    if (std::string why = shape_difference(*h.shape("s"), base_shape); !why.empty()) return why;
    auto hp = plan_launch(h, h.implementation("cuda"), *h.shape("s"), {});
    auto bp = plan_launch(b, b.implementation("cuda"), *base_shape, {});
    EXPECT_TRUE(hp.ok() && bp.ok());
    return align_sides(*hp, *bp, sides);
  }
  testing::TempDir dir;
  Manifest head, base;
  AlignedSides sides;
};

TEST_F(SideCompatibility, ANewLaunchAndRenamedBuffersStayComparable) {
  nlohmann::json h = kernel(), b = kernel();
  h["impl"]["cuda"]["launch"] = {{"grid", {"(n + 127) / 128"}}, {"block", {128}}};
  h["args"][1]["name"] = "input";
  EXPECT_EQ(difference(h, b), "");
  // The rename pairs 'input' with 'x': one buffer.
  ASSERT_EQ(sides.base.params.size(), 4u);
  EXPECT_EQ(sides.base.params[1].leaf, 1);
}

TEST_F(SideCompatibility, ScalarsAddedReorderedOrChangedKeepTheSidesComparable) {
  nlohmann::json h = kernel(), b = kernel();
  h["args"].push_back({{"name", "block_size"}, {"type", "int32"}, {"value", 256}});
  std::swap(h["args"][0], h["args"][2]);  // n first
  h["args"][3]["value"] = 2.5;
  EXPECT_EQ(difference(h, b), "");
  // Both plans over the same leaves: the head's, then the base's own scalars.
  EXPECT_EQ(sides.head.args.size(), sides.base.args.size());
  ASSERT_EQ(sides.base.params.size(), 4u);
  // The base's out and x are the head's (at 2 and 1), its scalars its own.
  EXPECT_EQ(sides.base.params[0].leaf, 2);
  EXPECT_EQ(sides.base.params[1].leaf, 1);
  EXPECT_GE(sides.base.params[2].leaf, 5);
  EXPECT_FALSE(sides.head.args[sides.base.params[2].leaf].used);
  EXPECT_TRUE(sides.base.args[sides.base.params[2].leaf].used);
  EXPECT_EQ(signature_change(head.kernels[0], base.kernels[0]),
            "the head adds parameter 'block_size' (int32); reorders the parameters");
}

TEST_F(SideCompatibility, ABufferOnlyOneSideHasMustBeDeclared) {
  nlohmann::json h = kernel(), b = kernel();
  h["args"].push_back({{"name", "bias"}, {"type", "float32*"}, {"count", "n"}});
  EXPECT_EQ(difference(h, b).rfind("the head's buffer 'bias' has no match in the base", 0), 0u);
  h["args"][4]["one_sided"] = true;
  EXPECT_EQ(difference(h, b), "");
  // The base's extra buffer: given to it, never judged.
  EXPECT_EQ(difference(b, h), "");
  EXPECT_EQ(signature_change(head.kernels[0], base.kernels[0]), "the head drops 'bias'");
  bool judged_extra = false;
  for (const ArgPlan& a : sides.base.args)
    if (a.arg->name == "bias") judged_extra = a.compared() || a.judged;
  EXPECT_FALSE(judged_extra);
}

TEST_F(SideCompatibility, ShapesMustExistWithTheSameVariables) {
  nlohmann::json h = kernel(), b = kernel();
  b["shapes"][0]["n"] = 4000;
  EXPECT_EQ(difference(h, b), "the base's shape 's' has n=4000, the head's n=1000");
  b["shapes"][0]["name"] = "t";
  head = load(h);
  base = load(b);
  EXPECT_EQ(shape_difference(*head.kernels[0].shape("s"), base.kernels[0].shape("s")),
            "the base has no shape 's'");
}

TEST_F(SideCompatibility, MatchedBuffersMustAgree) {
  nlohmann::json h = kernel(), b = kernel();
  h["args"][1]["count"] = "2 * n";
  EXPECT_EQ(difference(h, b), "buffer 'x' has 2000 elements in the head and 1000 in the base");
  h = kernel();
  h["args"][1]["type"] = "float16*";
  EXPECT_EQ(difference(h, b), "buffer 'x' is float16* in the head and float32* in the base");
  h = kernel();
  h["args"][0]["role"] = "inout";
  EXPECT_EQ(difference(h, b), "buffer 'out' is inout in the head and an output in the base");
  h = kernel();
  h["args"][1]["init"] = {{"dist", "uniform"}, {"low", 0}, {"high", 1}};
  EXPECT_EQ(difference(h, b), "buffer 'x' is made differently (\"init\") in the head and the base");
  h = kernel();
  h["args"][1]["null"] = true;
  EXPECT_EQ(difference(h, b), "buffer 'x' is NULL in the head and a buffer in the base");
}

TEST_F(SideCompatibility, EachSideMayHaveItsOwnDescriptor) {
  // candle's b219903d0: the head passes NULL for a contiguous tensor's
  // descriptor, the base still needs dims and strides.
  nlohmann::json h = kernel(), b = kernel();
  b["args"].push_back({{"name", "info"},
                       {"type", "const size_t*"},
                       {"init", {{"values", nlohmann::json::array({"n", 1})}}}});
  h["args"].push_back({{"name", "info"}, {"type", "const size_t*"}, {"null", true}});
  ASSERT_EQ(difference(h, b), "");
  ASSERT_EQ(sides.base.params.size(), 5u);
  ASSERT_EQ(sides.head.params.size(), 5u);
  // The base's descriptor is its own leaf, which the head does not take.
  const int base_info = sides.base.params[4].leaf;
  EXPECT_GE(base_info, 4);
  EXPECT_TRUE(sides.base.args[base_info].buffer());
  EXPECT_FALSE(sides.head.args[base_info].used);
  EXPECT_TRUE(sides.head.args[sides.head.params[4].leaf].null);
  // Data buffers stay one: a NULL data input is still a difference.
  nlohmann::json hx = kernel();
  hx["args"][1]["null"] = true;
  EXPECT_EQ(difference(hx, kernel()), "buffer 'x' is NULL in the head and a buffer in the base");
}

}  // namespace
}  // namespace kgate
