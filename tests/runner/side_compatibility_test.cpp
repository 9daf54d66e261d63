// When the base and the head of a change can be timed against each other on
// a shape, and the plain reason when they cannot.
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
  // A one-kernel manifest: `args` replaces the default arguments, `shape` the shape.
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
    return plan_difference(*hp, *bp);
  }
  testing::TempDir dir;
  Manifest head, base;
};

TEST_F(SideCompatibility, ANewLaunchAndRenamedArgumentsStayComparable) {
  nlohmann::json h = kernel(), b = kernel();
  h["impl"]["cuda"]["launch"] = {{"grid", {"(n + 127) / 128"}}, {"block", {128}}};
  h["args"][1]["name"] = "input";
  EXPECT_EQ(difference(h, b), "");
}

TEST_F(SideCompatibility, AnAddedArgumentIsNamed) {
  nlohmann::json h = kernel(), b = kernel();
  h["args"].push_back({{"name", "bias"}, {"type", "float32*"}, {"count", "n"}});
  EXPECT_EQ(difference(h, b), "the head adds argument 'bias'");
  EXPECT_EQ(difference(b, h), "the head drops argument 'bias'");
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

TEST_F(SideCompatibility, CountsDtypesRolesAndScalarsMustMatch) {
  nlohmann::json h = kernel(), b = kernel();
  h["args"][1]["count"] = "2 * n";
  EXPECT_EQ(difference(h, b),
            "argument 1 ('x') has 2000 elements in the head and 1000 in the base");
  h = kernel();
  h["args"][1]["type"] = "float16*";
  EXPECT_EQ(difference(h, b), "argument 1 ('x') is float16* in the head and float32* in the base");
  h = kernel();
  h["args"][0]["role"] = "inout";
  EXPECT_EQ(difference(h, b), "argument 0 ('out') is inout in the head and an output in the base");
  h = kernel();
  h["args"][3]["value"] = 2.5;
  EXPECT_EQ(difference(h, b), "argument 3 ('k') is 2.5 in the head and 1.5 in the base");
  h = kernel();
  h["args"][1]["init"] = {{"dist", "uniform"}, {"low", 0}, {"high", 1}};
  EXPECT_EQ(difference(h, b),
            "argument 1 ('x') is drawn differently (\"init\") in the head and the base");
}

}  // namespace
}  // namespace kgate
