// Per-shape scalars: shapes may give non-integer variables, a float scalar
// may name one (each shape passes its own value), and an integer expression
// that reads one is an error naming its JSON path.
#include <gtest/gtest.h>

#include "core/manifest_loader.h"
#include "support/manifest_edit_test.h"
#include "support/test_support.h"

namespace kgate {
namespace {

const char* kManifest = R"~({
  "kernels": [{
    "name": "scale",
    "impl": {"host": {"source": "scale.cpp", "entry": "scale"}},
    "args": [
      {"name": "out",   "type": "float*", "count": "n", "role": "output"},
      {"name": "x",     "type": "const float*", "count": "n"},
      {"name": "n",     "type": "int32", "value": "n"},
      {"name": "scale", "type": "float32", "value": "scale"},
      {"name": "eps",   "type": "float64", "value": "1e-6"}
    ],
    "shapes": [{"name": "decode", "n": 7, "scale": 0.125, "eps": 1e-6},
               {"name": "prefill", "n": 4096, "scale": 2.5, "eps": 1e-5}],
    "reference": {"source": "scale_ref.cpp", "entry": "scale_ref"}
  }]
})~";

class ShapeScalarsTest : public testing::ManifestEditTest {
 protected:
  ShapeScalarsTest() : ManifestEditTest(kManifest, {"scale.cpp", "scale_ref.cpp"}) {}
};

TEST_F(ShapeScalarsTest, ShapesKeepFloatVariablesApartAndScalarsNameThem) {
  auto manifest = parse_after("", "");
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  const Kernel& k = manifest->kernels[0];
  EXPECT_EQ(k.shapes[0].variables.size(), 1u);  // only n: integer expressions never see scale
  EXPECT_DOUBLE_EQ(k.shapes[0].float_variables.at("scale"), 0.125);
  EXPECT_DOUBLE_EQ(k.shapes[1].float_variables.at("eps"), 1e-5);
  EXPECT_EQ(k.args[3].float_variable, "scale");
  EXPECT_DOUBLE_EQ(*k.shapes[1].number("scale"), 2.5);
  EXPECT_DOUBLE_EQ(*k.shapes[1].number("n"), 4096.0);  // an integer variable reads as a number
  EXPECT_FALSE(k.shapes[1].number("missing"));
  // A number written as text is still a number, not a variable.
  EXPECT_TRUE(k.args[4].float_variable.empty());
  EXPECT_DOUBLE_EQ(k.args[4].float_value, 1e-6);
}

TEST_F(ShapeScalarsTest, AFloatScalarMayNameAnIntegerVariable) {
  auto manifest = parse_after(R"("value": "scale")", R"("value": "n")");
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  EXPECT_DOUBLE_EQ(*manifest->kernels[0].shapes[0].number("n"), 7.0);
}

TEST_F(ShapeScalarsTest, AFloatVariableInAnIntegerExpressionIsAnError) {
  EXPECT_EQ(error_after(R"("count": "n", "role")", R"("count": "n * scale", "role")"),
            "kgate.json: kernels[0].args[0].count: 'scale' is a non-integer variable of shape "
            "'decode'; counts, launch dimensions and integer scalars take integer variables "
            "(float scalars may name it)");
  EXPECT_NE(error_after(R"("type": "int32", "value": "n")", R"("type": "int32", "value": "eps")")
                .find("kernels[0].args[2].value: 'eps' is a non-integer variable"),
            std::string::npos);
}

TEST_F(ShapeScalarsTest, EveryShapeMustGiveTheNamedVariable) {
  EXPECT_EQ(error_after(R"("n": 4096, "scale": 2.5, )", R"("n": 4096, )"),
            "kgate.json: kernels[0].args[3].value: shape 'prefill' has no variable 'scale' (a "
            "float scalar naming a shape variable needs it in every shape)");
}

TEST_F(ShapeScalarsTest, BadValuesAndVariablesNameTheirPath) {
  EXPECT_NE(error_after(R"("value": "scale")", R"("value": "2.5x")")
                .find("kernels[0].args[3].value: expected a number or a shape variable name, got "
                      "\"2.5x\""),
            std::string::npos);
  EXPECT_NE(error_after(R"("value": "scale")", R"("value": true)")
                .find("kernels[0].args[3].value: expected a number or a shape variable name"),
            std::string::npos);
  EXPECT_NE(error_after(R"("scale": 0.125)", R"("scale": "0.125")")
                .find("kernels[0].shapes[0].scale: a shape variable must be a number, got string"),
            std::string::npos);
  // A shape still needs an integer variable: float ones alone size nothing.
  EXPECT_NE(error_after(R"({"name": "decode", "n": 7, )", R"({"name": "decode", )")
                .find("kernels[0].shapes[0]: a shape needs at least one integer variable"),
            std::string::npos);
}

}  // namespace
}  // namespace kgate
