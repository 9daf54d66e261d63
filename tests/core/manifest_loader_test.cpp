#include "core/manifest_loader.h"

#include <gtest/gtest.h>

#include "support/test_support.h"

namespace kgate {
namespace {

using testing::TempDir;

// A valid manifest; each broken case below changes one thing in it.
const char* kValid = R"~({
  // comments are allowed
  "kernels": [{
    "name": "scale",
    "impl": {"host": {"source": "scale.cpp", "entry": "scale", "tunables": {"UNROLL": [1, 2]}},
             "cuda": {"source": "scale.cu", "entry": "scale_kernel",
                      "launch": {"grid": ["ceil_div(n, BLOCK)"], "block": ["BLOCK"]},
                      "tunables": {"BLOCK": [256, 128]}}},
    "args": [
      {"name": "out", "type": "float*", "count": "n", "role": "output"},
      {"name": "x",   "type": "const float*", "count": "n"},
      {"name": "n",   "type": "int32", "value": "n"},
      {"name": "k",   "type": "float32", "value": 2.5}
    ],
    "shapes": [{"name": "small", "phase": "decode", "n": 7}, {"name": "big", "phase": "prefill", "n": 4096}],
    "reference": {"source": "scale_ref.cpp", "entry": "scale_ref"},
    "tolerance": {"atol": 1e-5, "rtol": 1e-5}
  }]
})~";

void replace_once(std::string& text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  ASSERT_NE(at, std::string::npos) << "test bug: '" << from << "' not in the manifest";
  text.replace(at, from.size(), to);
}

class ManifestLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* f : {"scale.cpp", "scale.cu", "scale_ref.cpp", "scale_ref.cu"})
      testing::write(dir_ / f, "// source\n");
  }
  Result<Manifest> parse(const std::string& text) {
    return parse_manifest(text, "kgate.json", dir_.path());
  }
  // Applies one textual edit to kValid and returns the load error.
  std::string error_after(const std::string& from, const std::string& to) {
    std::string text = kValid;
    auto pos = text.find(from);
    EXPECT_NE(pos, std::string::npos) << "test bug: '" << from << "' not in the valid manifest";
    text.replace(pos, from.size(), to);
    auto result = parse(text);
    EXPECT_FALSE(result.ok()) << "expected an error after replacing '" << from << "'";
    if (result.ok()) return "";
    EXPECT_EQ(result.error().kind, ExitCode::kBadInput);
    return result.error().message;
  }
  TempDir dir_;
};

TEST_F(ManifestLoaderTest, LoadsTheValidManifest) {
  auto manifest = parse(kValid);
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  ASSERT_EQ(manifest->kernels.size(), 1u);
  const Kernel& k = manifest->kernels[0];
  EXPECT_EQ(k.family, "scale");
  ASSERT_NE(k.implementation("cuda"), nullptr);
  EXPECT_EQ(k.implementation("cuda")->default_tunables().at("BLOCK"), 256);
  EXPECT_TRUE(k.args[1].is_buffer);
  EXPECT_EQ(k.args[1].dtype, DType::kFloat32);
  EXPECT_EQ(k.args[0].role, ArgRole::kOutput);
  EXPECT_DOUBLE_EQ(k.args[3].float_value, 2.5);
  EXPECT_EQ(k.shapes[1].variables.at("n"), 4096);
  EXPECT_LT(manifest->gate.min_change_s, 0);  // unset: the backend's timer floor
}

TEST_F(ManifestLoaderTest, TheGateSectionSetsTheChangeFloor) {
  std::string text = kValid;
  text.replace(text.rfind("}]"), 2, R"~(}], "gate": {"min_change_s": 0, "resolution": 0.02})~");
  auto manifest = parse(text);
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  EXPECT_EQ(manifest->gate.min_change_s, 0);
  EXPECT_DOUBLE_EQ(manifest->gate.resolution, 0.02);
}

TEST_F(ManifestLoaderTest, ShapesTakeTheirOwnTimingElseTheirPhases) {
  std::string text = kValid;
  replace_once(text, R"~("phase": "decode", "n": 7})~",
               R"~("phase": "edge", "n": 7, "timing": "off"})~");
  replace_once(text, R"~("phase": "prefill", "n": 4096}])~",
               R"~("phase": "prefill", "n": 4096}, {"name": "odd", "phase": "edge", "n": 5},
                  {"name": "tail", "phase": "tail", "n": 3}])~");
  text.replace(text.rfind("}]"), 2,
               R"~(}], "gate": {"timing_by_phase": {"edge": "report", "prefill": "gate"}})~");
  auto manifest = parse(text);
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  const GatePolicy& gate = manifest->gate;
  const Kernel& k = manifest->kernels[0];
  ASSERT_EQ(k.shapes.size(), 4u);
  EXPECT_EQ(k.shapes[0].timing, ShapeTiming::kOff);
  EXPECT_EQ(k.shapes[0].variables.count("timing"), 0u);  // not a shape variable
  EXPECT_FALSE(k.shapes[2].timing.has_value());
  // The shape's own timing wins over its phase's; unnamed phases gate.
  EXPECT_EQ(gate.timing_of(k.shapes[0]), ShapeTiming::kOff);
  EXPECT_EQ(gate.timing_of(k.shapes[1]), ShapeTiming::kGate);    // prefill
  EXPECT_EQ(gate.timing_of(k.shapes[2]), ShapeTiming::kReport);  // edge
  EXPECT_EQ(gate.timing_of(k.shapes[3]), ShapeTiming::kGate);    // tail: not named
}

TEST_F(ManifestLoaderTest, TheGateSectionSetsTheOracleAndTheLaunchFloor) {
  auto defaults = parse(kValid);
  ASSERT_TRUE(defaults.ok()) << defaults.error().message;
  EXPECT_EQ(defaults->gate.oracle, GatePolicy::Oracle::kReference);
  EXPECT_DOUBLE_EQ(defaults->gate.launch_floor_factor, 2.0);
  EXPECT_EQ(defaults->gate.launch_floor_max_bytes, 4096);
  std::string text = kValid;
  text.replace(text.rfind("}]"), 2,
               R"~(}], "gate": {"oracle": "base", "launch_floor_factor": 0,
                   "launch_floor_max_bytes": 512, "host_reference_max_elements": 1000})~");
  auto manifest = parse(text);
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  EXPECT_EQ(manifest->gate.oracle, GatePolicy::Oracle::kBase);
  EXPECT_EQ(manifest->gate.launch_floor_factor, 0);
  EXPECT_EQ(manifest->gate.launch_floor_max_bytes, 512);
  EXPECT_EQ(manifest->gate.host_reference_max_elements, 1000);
}

TEST_F(ManifestLoaderTest, AReferenceMayHaveAKernelForTheGpu) {
  std::string text = kValid;
  replace_once(text, R"~("entry": "scale_ref"})~",
               R"~("entry": "scale_ref", "cuda": {"source": "scale_ref.cu", "entry": "scale_ref_k",
                   "compile": {"flags": ["-lineinfo"]}, "launch": {"grid": ["ceil_div(n, 256)"], "block": [256]}}})~");
  auto manifest = parse(text);
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  const Reference& ref = manifest->kernels[0].reference;
  EXPECT_EQ(ref.source, "scale_ref.cpp");
  ASSERT_TRUE(ref.cuda.has_value());
  EXPECT_EQ(ref.cuda->backend, "cuda");
  EXPECT_EQ(ref.cuda->entry, "scale_ref_k");
  EXPECT_EQ(ref.cuda->compile.flags, std::vector<std::string>{"-lineinfo"});
  EXPECT_EQ(ref.cuda->json_path, "kernels[0].reference.cuda");
  ASSERT_EQ(ref.cuda->launch.grid.size(), 1u);
  EXPECT_EQ(*ref.cuda->launch.grid[0].evaluate({{"n", 4096}}), 16);
}

TEST_F(ManifestLoaderTest, BadJsonNamesLineAndColumn) {
  auto result = parse("{\n  \"kernels\": [\n    {\"name\": \"x\",,}\n  ]\n}");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("kgate.json:3:"), std::string::npos)
      << result.error().message;
  EXPECT_NE(result.error().message.find("invalid JSON"), std::string::npos);
}

struct BrokenCase {
  const char* name;
  const char* from;
  const char* to;
  const char* expected;  // substring of the message, JSON path included
};

class BrokenManifest : public ManifestLoaderTest,
                       public ::testing::WithParamInterface<BrokenCase> {};

TEST_P(BrokenManifest, SaysWhereAndWhat) {
  const BrokenCase& c = GetParam();
  std::string message = error_after(c.from, c.to);
  EXPECT_NE(message.find(c.expected), std::string::npos) << "message was: " << message;
  EXPECT_EQ(message.rfind("kgate.json: ", 0), 0u)
      << "message must start with the file: " << message;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BrokenManifest,
    ::testing::Values(
        BrokenCase{"UnknownDtype", R"~("type": "const float*")~", R"~("type": "float128*")~",
                   "kernels[0].args[1].type: unknown type 'float128*'"},
        BrokenCase{"MissingEntry", R"~("entry": "scale", )~", "",
                   "kernels[0].impl.host.entry: missing"},
        BrokenCase{"BadExpression", R"~("count": "n", "role")~", R"~("count": "n *", "role")~",
                   "kernels[0].args[0].count: in expression \"n *\""},
        BrokenCase{"UnknownVariable", R"~("count": "n", "role")~", R"~("count": "rows", "role")~",
                   "kernels[0].args[0].count: in expression \"rows\": unknown name 'rows'"},
        BrokenCase{"DivisionByZero", R"~("ceil_div(n, BLOCK)")~", R"~("n / (BLOCK - 256)")~",
                   "kernels[0].impl.cuda.launch.grid[0]: in expression \"n / (BLOCK - 256)\": "
                   "division by zero"},
        BrokenCase{
            "DuplicateKernelNames", R"~(}]
})~",
            R"~(}, {"name": "scale", "impl": {"host": {"source": "scale.cpp", "entry": "scale"}},
    "args": [{"name": "out", "type": "float*", "count": "n", "role": "output"}],
    "shapes": [{"name": "s", "n": 1}], "reference": {"source": "scale_ref.cpp", "entry": "r"}}]
})~",
            "kernels[1].name: duplicate kernel name 'scale'"},
        BrokenCase{"DuplicateShapeNames", R"~("name": "big")~", R"~("name": "small")~",
                   "kernels[0].shapes[1].name: duplicate shape name 'small'"},
        BrokenCase{"MissingReference",
                   R"~("reference": {"source": "scale_ref.cpp", "entry": "scale_ref"},)~", "",
                   "kernels[0].reference: missing"},
        BrokenCase{
            "NegativeCount", R"~("count": "n", "role")~", R"~("count": "n - 10", "role")~",
            "kernels[0].args[0].count: evaluates to -3 for shape 'small'; expected at least 1"},
        BrokenCase{
            "EmptyShapes",
            R"~("shapes": [{"name": "small", "phase": "decode", "n": 7}, {"name": "big", "phase": "prefill", "n": 4096}])~",
            R"~("shapes": [])~", "kernels[0].shapes: missing or empty"},
        BrokenCase{"MissingSourceFile", R"~("source": "scale.cu")~", R"~("source": "nope.cu")~",
                   "kernels[0].impl.cuda.source: file 'nope.cu' not found"},
        BrokenCase{"UnknownKey", R"~("tolerance":)~", R"~("tolerence":)~",
                   "kernels[0]: unknown key 'tolerence'"},
        BrokenCase{"UnknownBackend", R"~("host": {"source")~", R"~("rocm": {"source")~",
                   "kernels[0].impl.rocm: unknown backend 'rocm'"},
        BrokenCase{"NoOutput", R"~("role": "output")~", R"~("role": "input")~",
                   "kernels[0].args: no output"},
        BrokenCase{"ScalarWithoutValue", R"~("value": 2.5)~", R"~("valu": 2.5)~",
                   "kernels[0].args[3]: unknown key 'valu'"},
        BrokenCase{
            "FloatInIntegerExpression", R"~("value": "n")~", R"~("value": "n * 1.5")~",
            "kernels[0].args[2].value: in expression \"n * 1.5\" at column 5: only integers"},
        BrokenCase{"LaunchMissingForCuda",
                   R"~("launch": {"grid": ["ceil_div(n, BLOCK)"], "block": ["BLOCK"]},)~", "",
                   "kernels[0].impl.cuda.launch: missing"},
        BrokenCase{"OverflowingCount", R"~("count": "n", "role")~",
                   R"~("count": "n * 4611686018427387904", "role")~", "integer overflow"},
        BrokenCase{"NegativeChangeFloor", R"~(}]
})~",
                   R"~(}], "gate": {"min_change_s": -1e-7}
})~",
                   "gate.min_change_s: expected a number in [0"},
        BrokenCase{"UnknownShapeTiming", R"~("phase": "decode", "n": 7)~",
                   R"~("phase": "decode", "n": 7, "timing": "skip")~",
                   "kernels[0].shapes[0].timing: expected \"gate\" (timed, may fail the gate), "
                   "\"report\" (timed, never fails it) or \"off\" (checked, not timed), got "
                   "\"skip\""},
        BrokenCase{"ShapeTimingNotAString", R"~("phase": "decode", "n": 7)~",
                   R"~("phase": "decode", "n": 7, "timing": 1)~",
                   "kernels[0].shapes[0].timing: expected \"gate\""},
        BrokenCase{"UnknownPhaseTiming", R"~(}]
})~",
                   R"~(}], "gate": {"timing_by_phase": {"edge": "reported"}}
})~",
                   "gate.timing_by_phase.edge: expected \"gate\""},
        BrokenCase{"PhaseTimingNotAnObject", R"~(}]
})~",
                   R"~(}], "gate": {"timing_by_phase": ["edge"]}
})~",
                   "gate.timing_by_phase: expected an object of phase: timing"},
        BrokenCase{"UnknownOracle", R"~(}]
})~",
                   R"~(}], "gate": {"oracle": "head"}
})~",
                   "gate.oracle: expected \"reference\" or \"base\""},
        BrokenCase{"FractionalLaunchFloor", R"~(}]
})~",
                   R"~(}], "gate": {"launch_floor_factor": 0.5}
})~",
                   "gate.launch_floor_factor: expected 0 (rule off) or a factor of at least 1"},
        BrokenCase{"NegativeFloorBytes", R"~(}]
})~",
                   R"~(}], "gate": {"launch_floor_max_bytes": -1}
})~",
                   "gate.launch_floor_max_bytes: expected a non-negative integer"},
        BrokenCase{"ReferenceKernelWithoutLaunch", R"~("entry": "scale_ref"})~",
                   R"~("entry": "scale_ref", "cuda": {"source": "scale_ref.cu", "entry": "r"}})~",
                   "kernels[0].reference.cuda.launch: missing"},
        BrokenCase{"ReferenceKernelWithTunables", R"~("entry": "scale_ref"})~",
                   R"~("entry": "scale_ref", "cuda": {"source": "scale_ref.cu", "entry": "r",
                       "launch": {"grid": ["n"], "block": [256]}, "tunables": {"B": [1]}}})~",
                   "kernels[0].reference.cuda: unknown key 'tunables'"},
        BrokenCase{
            "ReferenceKernelReadsATunable", R"~("entry": "scale_ref"})~",
            R"~("entry": "scale_ref", "cuda": {"source": "scale_ref.cu", "entry": "r",
                       "launch": {"grid": ["ceil_div(n, BLOCK)"], "block": [256]}}})~",
            "kernels[0].reference.cuda.launch.grid[0]: in expression \"ceil_div(n, BLOCK)\""},
        BrokenCase{"ReferenceKernelFileMissing", R"~("entry": "scale_ref"})~",
                   R"~("entry": "scale_ref", "cuda": {"source": "nope_ref.cu", "entry": "r",
                       "launch": {"grid": ["n"], "block": [256]}}})~",
                   "kernels[0].reference.cuda.source: file 'nope_ref.cu' not found"},
        BrokenCase{"ReferenceKernelForAnUnknownBackend", R"~("entry": "scale_ref"})~",
                   R"~("entry": "scale_ref", "rocm": {}})~",
                   "kernels[0].reference: unknown key 'rocm'"}),
    [](const ::testing::TestParamInfo<BrokenCase>& info) { return info.param.name; });

TEST_F(ManifestLoaderTest, NoKernelsIsAnError) {
  auto result = parse(R"({"kernels": []})");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().message, "kgate.json: kernels: expected a non-empty array of kernels");
}

TEST_F(ManifestLoaderTest, FindsManifestInFolderAndGithubFolder) {
  testing::write(dir_ / ".github/kgate.json", kValid);
  auto manifest = load_manifest(dir_.path());
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  EXPECT_EQ(manifest->root, dir_.path());
  auto missing = load_manifest(dir_ / "nowhere");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("cannot read the manifest"), std::string::npos);
}

TEST_F(ManifestLoaderTest, TheExampleManifestLoads) {
  auto manifest = load_manifest(testing::example_dir());
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  for (const Kernel& k : manifest->kernels) {
    std::set<std::string> phases;
    for (const Shape& s : k.shapes) phases.insert(s.phase);
    // Every example kernel declares all three shape families.
    EXPECT_TRUE(phases.count("decode") && phases.count("prefill") && phases.count("edge"))
        << k.name;
    // Edge shapes never fail a change on time; the others gate.
    for (const Shape& s : k.shapes)
      EXPECT_EQ(manifest->gate.timing_of(s) == ShapeTiming::kGate, s.phase != "edge")
          << k.name << " " << s.name;
    // Every example kernel has a reference kernel for the large shapes on the GPU.
    EXPECT_TRUE(k.reference.cuda.has_value()) << k.name;
  }
}

}  // namespace
}  // namespace kgate
