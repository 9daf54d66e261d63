// The arguments of real kernel libraries, as the manifest declares and the
// planner evaluates them per shape: descriptor buffers with given contents
// (dims and strides), pointers that are NULL on some shapes, the C scalar
// types of their signatures with the ABI's sizes, structs passed by value
// laid out as the C compiler lays them out, derived values ("let") and
// conditionals in launches, per-output tolerances; and every value the run
// would refuse refused by the loader already (what `kgate validate` says).
#include "core/argument_plan.h"

#include <gtest/gtest.h>

#include <cstring>

#include "core/manifest_loader.h"
#include "support/test_support.h"

namespace kgate {
namespace {

using json = nlohmann::json;

// A strided copy in the manner of candle's unary kernels: numel, num_dims,
// an info descriptor (dims, then strides), input and output.
json strided_copy() {
  return json::parse(R"~({
    "kernels": [{
      "name": "ucopy",
      "impl": {"cuda": {"source": "k.cu", "entry": "ucopy_f32",
                        "launch": {"grid": ["ceil_div(numel, block)"], "block": ["block"]}}},
      "let": {"numel": "rows * cols", "block": "numel < 1024 ? 32 : 1024"},
      "args": [
        {"name": "numel", "type": "size_t", "value": "numel"},
        {"name": "num_dims", "type": "size_t", "value": 2},
        {"name": "info", "type": "const size_t*", "null": "contiguous",
         "init": {"values": ["rows", "cols", "transposed ? 1 : cols", "transposed ? rows : 1"]}},
        {"name": "inp", "type": "const float*", "count": "numel"},
        {"name": "out", "type": "float*", "count": "numel", "role": "output",
         "tolerance": {"atol": 0, "rtol": 0}}
      ],
      "shapes": [
        {"name": "contiguous", "rows": 4, "cols": 512, "contiguous": 1, "transposed": 0},
        {"name": "transposed", "rows": 64, "cols": 512, "contiguous": 0, "transposed": 1}
      ],
      "reference": {"source": "ref.cpp", "entry": "ucopy_ref"}
    }]
  })~");
}

class ArgumentPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* f : {"k.cu", "ref.cpp"}) testing::write(dir_ / f, "// source\n");
  }
  Result<Manifest> parse(const json& manifest) {
    return parse_manifest(manifest.dump(), "kgate.json", dir_.path());
  }
  std::string error(const json& manifest) {
    auto m = parse(manifest);
    EXPECT_FALSE(m.ok()) << "expected the manifest to be refused";
    return m.ok() ? "" : m.error().message;
  }
  ArgumentPlan plan(const Manifest& m, const std::string& shape) {
    const Kernel& k = m.kernels.at(0);
    auto vars = k.variables(*k.shape(shape), k.implementations[0].default_tunables());
    EXPECT_TRUE(vars.ok()) << vars.error().message;
    auto p = plan_arguments(k, *k.shape(shape), *vars);
    EXPECT_TRUE(p.ok()) << p.error().message;
    return p.ok() ? *p : ArgumentPlan{};
  }
  testing::TempDir dir_;
};

TEST_F(ArgumentPlanTest, ADescriptorIsGivenPerShapeAndNullWhereTheShapeSays) {
  auto m = parse(strided_copy());
  ASSERT_TRUE(m.ok()) << m.error().message;
  ArgumentPlan contiguous = plan(*m, "contiguous");
  ASSERT_EQ(contiguous.args.size(), 5u);
  EXPECT_TRUE(contiguous.args[2].null);
  EXPECT_FALSE(contiguous.args[2].buffer());
  EXPECT_EQ(contiguous.args[2].bytes, 0u);
  ArgumentPlan transposed = plan(*m, "transposed");
  const ArgPlan& info = transposed.args[2];
  ASSERT_FALSE(info.null);
  EXPECT_EQ(info.count, 4);
  EXPECT_EQ(info.bytes, 32u);  // size_t: 8 bytes
  EXPECT_EQ(info.given, (std::vector<double>{64, 512, 1, 64}));
  // size_t scalars take 8 bytes, with the value's own bytes.
  EXPECT_EQ(transposed.args[0].scalar.size, 8u);
  uint64_t numel = 0;
  std::memcpy(&numel, transposed.args[0].scalar.bytes, 8);
  EXPECT_EQ(numel, 64u * 512u);
  // The output's own tolerance replaces the kernel's.
  EXPECT_EQ(transposed.args[4].tolerance.atol, 0);
  EXPECT_EQ(transposed.args[1].tolerance.atol, 1e-3);
}

TEST_F(ArgumentPlanTest, LetsAndConditionalsReachTheLaunch) {
  auto m = parse(strided_copy());
  ASSERT_TRUE(m.ok()) << m.error().message;
  const Kernel& k = m->kernels[0];
  auto small = k.variables(*k.shape("contiguous"), {});
  auto large = k.variables(*k.shape("transposed"), {});
  ASSERT_TRUE(small.ok() && large.ok());
  EXPECT_EQ(small->at("numel"), 2048);
  EXPECT_EQ(small->at("block"), 1024);
  EXPECT_EQ(large->at("block"), 1024);
  json tiny = strided_copy();
  tiny["kernels"][0]["shapes"][0]["cols"] = 100;
  auto t = parse(tiny);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->kernels[0].variables(t->kernels[0].shapes[0], {})->at("block"), 32);
}

TEST_F(ArgumentPlanTest, LetsAreOrderedByWhatTheyReadAndCyclesRefused) {
  json reversed = strided_copy();
  // "block" reads "numel": loaded in that order whatever JSON keeps.
  reversed["kernels"][0]["let"] = {{"a_block", "numel < 1024 ? 32 : 1024"},
                                   {"numel", "rows * cols"}};
  reversed["kernels"][0]["impl"]["cuda"]["launch"]["block"] = {"a_block"};
  reversed["kernels"][0]["impl"]["cuda"]["launch"]["grid"] = {"ceil_div(numel, a_block)"};
  auto m = parse(reversed);
  ASSERT_TRUE(m.ok()) << m.error().message;
  json cycle = strided_copy();
  cycle["kernels"][0]["let"] = {{"numel", "block * 2"}, {"block", "numel / 2"}};
  EXPECT_NE(error(cycle).find("a cycle"), std::string::npos);
  json clash = strided_copy();
  clash["kernels"][0]["let"]["rows"] = "4";
  EXPECT_NE(error(clash).find("kernels[0].let.rows: 'rows' is also a variable of shape"),
            std::string::npos);
}

TEST_F(ArgumentPlanTest, ValidateRefusesWhatTheRunWouldRefuse) {
  json bad = strided_copy();
  bad["kernels"][0]["args"].push_back(
      {{"name", "ids"},
       {"type", "int32*"},
       {"count", "rows"},
       {"init", {{"dist", "randint"}, {"low", "cols"}, {"high", "cols"}}}});
  EXPECT_NE(error(bad).find("args[5].init, shape 'contiguous'): randint needs low < high"),
            std::string::npos)
      << error(bad);
  json wrong_length = strided_copy();
  wrong_length["kernels"][0]["args"][2]["count"] = 3;
  EXPECT_NE(error(wrong_length)
                .find("args[2].init.values, shape 'transposed'): gives 4 values for a buffer of 3"),
            std::string::npos)
      << error(wrong_length);
  json too_big = strided_copy();
  too_big["kernels"][0]["args"][1] = {{"name", "num_dims"}, {"type", "uint8"}, {"value", 300}};
  EXPECT_NE(error(too_big).find("value 300 does not fit in uint8"), std::string::npos);
  json negative = strided_copy();
  negative["kernels"][0]["args"][0]["value"] = "0 - numel";
  EXPECT_NE(error(negative).find("does not fit in uint64"), std::string::npos);
  json every_output_null = strided_copy();
  every_output_null["kernels"][0]["args"][4]["null"] = true;
  EXPECT_NE(error(every_output_null).find("passes every output as NULL"), std::string::npos);
  json formula = strided_copy();
  formula["kernels"][0]["args"][2] = {{"name", "info"},
                                      {"type", "int32*"},
                                      {"count", 4},
                                      {"init", {{"formula", "cols / (i - 3)"}}}};
  EXPECT_NE(error(formula).find("division by zero"), std::string::npos) << error(formula);
}

TEST_F(ArgumentPlanTest, CScalarTypesHaveTheirABISizes) {
  for (auto [type, size] : std::vector<std::pair<const char*, size_t>>{{"size_t", 8},
                                                                       {"unsigned int", 4},
                                                                       {"uint32_t", 4},
                                                                       {"int8", 1},
                                                                       {"int16_t", 2},
                                                                       {"uint16", 2},
                                                                       {"bool", 1},
                                                                       {"long", 8},
                                                                       {"unsigned long long", 8},
                                                                       {"uint64", 8}}) {
    json m = strided_copy();
    m["kernels"][0]["args"][1] = {{"name", "num_dims"}, {"type", type}, {"value", 1}};
    auto loaded = parse(m);
    ASSERT_TRUE(loaded.ok()) << type << ": " << loaded.error().message;
    EXPECT_EQ(param_size(loaded->kernels[0].args[1]), size) << type;
  }
  json m = strided_copy();
  m["kernels"][0]["args"][1] = {{"name", "num_dims"}, {"type", "quad"}, {"value", 1}};
  EXPECT_NE(error(m).find("unknown type 'quad' (expected float64"), std::string::npos);
}

// ggml's soft_max_params-style struct: int64 extents, a uint32, floats and
// a pointer, laid out with each field at a multiple of its size.
json with_struct() {
  json m = strided_copy();
  m["kernels"][0]["args"] = json::parse(R"~([
    {"name": "x", "type": "const float*", "count": "rows * cols"},
    {"name": "dst", "type": "float*", "count": "rows * cols", "role": "output"},
    {"name": "p", "type": "struct", "fields": [
      {"name": "ncols", "type": "int64", "value": "cols"},
      {"name": "n_head_log2", "type": "uint32", "value": "floor_log2(rows)"},
      {"name": "scale", "type": "float", "value": 0.5},
      {"name": "flag", "type": "bool", "value": true},
      {"name": "mask", "type": "const float*", "count": "cols"},
      {"name": "div", "type": "struct", "fields": [
        {"name": "mp", "type": "uint32", "value": 1},
        {"name": "L", "type": "uint32", "value": "ceil_log2(cols)"},
        {"name": "d", "type": "uint32", "value": "cols"}]}
    ]}
  ])~");
  return m;
}

TEST_F(ArgumentPlanTest, AStructIsLaidOutAsTheCCompilerDoesWithItsBuffersAsLeaves) {
  auto m = parse(with_struct());
  ASSERT_TRUE(m.ok()) << m.error().message;
  const Kernel& k = m->kernels[0];
  const StructLayout layout = struct_layout(k.args[2]);
  // int64 @0, uint32 @8, float @12, bool @16, pointer @24, uint3 @32 (12 bytes), size 48.
  EXPECT_EQ(layout.offsets, (std::vector<size_t>{0, 8, 12, 16, 24, 32}));
  EXPECT_EQ(layout.size, 48u);
  EXPECT_EQ(layout.align, 8u);
  // The reference takes the leaves: x, dst, then the struct's fields in place.
  std::vector<std::string> names;
  for (const Arg* leaf : k.leaves()) names.push_back(leaf->name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"x", "dst", "p.ncols", "p.n_head_log2", "p.scale", "p.flag",
                                      "p.mask", "p.div.mp", "p.div.L", "p.div.d"}));
  ArgumentPlan p = plan(*m, "transposed");
  ASSERT_EQ(p.params.size(), 3u);
  const ParamPlan& s = p.params[2];
  ASSERT_EQ(s.bytes.size(), 48u);
  int64_t ncols = 0;
  uint32_t log2 = 0, L = 0, d = 0;
  float scale = 0;
  std::memcpy(&ncols, s.bytes.data(), 8);
  std::memcpy(&log2, s.bytes.data() + 8, 4);
  std::memcpy(&scale, s.bytes.data() + 12, 4);
  std::memcpy(&L, s.bytes.data() + 36, 4);
  std::memcpy(&d, s.bytes.data() + 40, 4);
  EXPECT_EQ(ncols, 512);
  EXPECT_EQ(log2, 6u);
  EXPECT_EQ(scale, 0.5f);
  EXPECT_EQ(s.bytes[16], 1);
  EXPECT_EQ(L, 9u);
  EXPECT_EQ(d, 512u);
  ASSERT_EQ(s.pointers.size(), 1u);
  EXPECT_EQ(s.pointers[0].first, 24u);
  // A launch writes the buffer's address into the struct's bytes.
  std::vector<uint64_t> addresses(p.args.size(), 0);
  addresses[s.pointers[0].second] = 0x1234000;
  std::vector<ArgSlot> slots = param_slots(p, addresses);
  ASSERT_EQ(slots.size(), 3u);
  EXPECT_EQ(slots[2].size, 48u);
  uint64_t address = 0;
  std::memcpy(&address, slots[2].data() + 24, 8);
  EXPECT_EQ(address, 0x1234000u);
}

TEST_F(ArgumentPlanTest, AStructsAlignmentCanBeRaised) {
  json m = with_struct();
  m["kernels"][0]["args"][2]["fields"][5]["align"] = 16;  // a uint4-like __align__(16)
  auto loaded = parse(m);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  const StructLayout layout = struct_layout(loaded->kernels[0].args[2]);
  EXPECT_EQ(layout.offsets.back(), 32u);
  EXPECT_EQ(layout.align, 16u);
  EXPECT_EQ(layout.size, 48u);
  json bad = with_struct();
  bad["kernels"][0]["args"][2]["align"] = 3;
  EXPECT_NE(error(bad).find("args[2].align: expected a power of two"), std::string::npos);
  json value_on_struct = with_struct();
  value_on_struct["kernels"][0]["args"][2]["value"] = 1;
  EXPECT_NE(error(value_on_struct).find("a struct takes \"fields\""), std::string::npos);
}

TEST_F(ArgumentPlanTest, InitsOfGivenContentsAndSharedDraws) {
  json m = strided_copy();
  m["kernels"][0]["args"].push_back({{"name", "offsets"},
                                     {"type", "int32*"},
                                     {"count", "rows + 1"},
                                     {"init", {{"formula", "i * cols"}}}});
  m["kernels"][0]["args"].push_back({{"name", "cos"},
                                     {"type", "float*"},
                                     {"count", "cols"},
                                     {"init",
                                      {{"dist", "uniform"},
                                       {"low", -3.0},
                                       {"high", 3.0},
                                       {"share", "angle"},
                                       {"apply", "cos"}}}});
  m["kernels"][0]["args"].push_back(
      {{"name", "ids"},
       {"type", "uint32*"},
       {"count", "rows"},
       {"init", {{"dist", "randint"}, {"low", 0}, {"high", "cols"}, {"sorted", true}}}});
  auto loaded = parse(m);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  const Kernel& k = loaded->kernels[0];
  EXPECT_EQ(k.args[5].init.distribution, InitSpec::Distribution::kFormula);
  EXPECT_FALSE(k.args[5].init.device_drawable());
  EXPECT_EQ(k.args[6].init.share, "angle");
  EXPECT_EQ(k.args[6].init.apply, InitSpec::Apply::kCos);
  EXPECT_TRUE(k.args[6].init.device_drawable());
  EXPECT_FALSE(k.args[7].init.device_drawable());
  ArgumentPlan p = plan(*loaded, "transposed");
  auto v = given_element(p.args[5], k.variables(*k.shape("transposed"), {}).value(), 3);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 3 * 512);
  json apply_on_int = m;
  apply_on_int["kernels"][0]["args"][7]["init"]["apply"] = "cos";
  EXPECT_NE(error(apply_on_int).find("apply: is for float buffers"), std::string::npos);
  json both = m;
  both["kernels"][0]["args"][5]["init"]["dist"] = "normal";
  EXPECT_NE(error(both).find("give a distribution or given contents, not both"), std::string::npos);
}

}  // namespace
}  // namespace kgate
