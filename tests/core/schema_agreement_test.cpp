// docs/kgate.schema.json and the manifest loader judge the same manifests
// alike: each case of the table below (one edit of a valid manifest) goes
// through the loader and through a JSON Schema validator
// (tests/support/validate_schema.py, python3-jsonschema), and both must say
// valid, or both invalid. Comments are stripped first, as the loader does.
// What only the loader can know (an expression naming an unknown variable,
// defaults that break a constraint) is in the loader's own tests; the few
// such cases here are marked and pin that the schema accepts them.
#include <gtest/gtest.h>

#include "core/manifest_loader.h"
#include "core/subprocess.h"
#include "support/test_support.h"

namespace kgate {
namespace {

using json = nlohmann::json;

const char* kBase = R"~({
  "$schema": "docs/kgate.schema.json",
  // comments are allowed, as in every kgate.json
  "version": 1,
  "kernels": [{
    "name": "gemm",
    "family": "gemm",
    "description": "C = A * B",
    "impl": {
      "cuda": {"source": "gemm.cu", "entry": "gemm<BM, BN, BK, TM, TN>",
               "compile": {"compiler": "nvrtc", "flags": ["-lineinfo"]},
               "launch": {"grid": ["ceil_div(N, BN)", "ceil_div(M, BM)"],
                          "block": ["(BM / TM) * (BN / TN)"], "shared_bytes": 0},
               "tunables": {"BM": {"values": [64, 128], "role": "tile_rows"},
                            "BN": {"values": [64, 128], "role": "tile_cols"},
                            "BK": {"values": [8, 16], "role": "tile_k"},
                            "TM": {"values": [8, 4], "role": "thread_tile_rows"},
                            "TN": [8, 4]},
               "constraints": ["BM % TM == 0", "(BM / TM) * (BN / TN) <= 1024"]},
      "host": {"source": "gemm.cpp", "entry": "gemm_host", "tunables": {"UNROLL": [1, 2]}}
    },
    "args": [
      {"name": "C", "type": "float*", "count": "M * N", "role": "output"},
      {"name": "A", "type": "const float*", "count": "M * K", "init": "uniform"},
      {"name": "B", "type": "const float*", "count": "K * N",
       "init": {"dist": "normal", "mean": 0, "std": 1}},
      {"name": "M", "type": "int32", "value": "M"},
      {"name": "N", "type": "int32", "value": "N"},
      {"name": "K", "type": "int32", "value": "K"},
      {"name": "alpha", "type": "float32", "value": "alpha"}
    ],
    "shapes": [
      {"name": "square", "phase": "prefill", "M": 256, "N": 256, "K": 256, "alpha": 1.5},
      {"name": "k0", "phase": "edge", "M": 64, "N": 64, "K": 0, "alpha": 1.0, "allow_empty": true},
      {"name": "host-only", "phase": "decode", "M": 8, "N": 8, "K": 8, "alpha": 0.5,
       "backends": ["host"], "timing": "report"}
    ],
    "reference": {"source": "gemm_ref.cpp", "entry": "gemm_ref",
                  "cuda": {"source": "gemm_ref.cu", "entry": "gemm_ref_kernel",
                           "launch": {"grid": ["ceil_div(M * N, 256)"], "block": [256]}}},
    "tolerance": {"atol": 1e-4, "rtol": 1e-4},
    "timing": {"warmup": 2, "samples": 10, "time_limit_s": 30}
  }],
  "gate": {"max_regression": 0.03, "min_improvement": 0.03, "confidence": 0.99, "budget_s": 1,
           "resolution": 0.01, "min_change_s": 1e-7, "sanitize": ["memcheck"],
           "timing_by_phase": {"edge": "report"}, "launch_floor_factor": 2,
           "launch_floor_max_bytes": 4096, "oracle": "reference",
           "host_reference_max_elements": 4194304}
})~";

struct Case {
  const char* name;
  const char* from;  // "" with to "": the base itself
  const char* to;
  bool valid;
  bool loader_only = false;  // the schema cannot see it: it accepts, the loader refuses
};

const Case kCases[] = {
    {"the base", "", "", true},
    {"min_change_s at its largest", "\"min_change_s\": 1e-7", "\"min_change_s\": 1", true},
    {"min_change_s negative", "\"min_change_s\": 1e-7", "\"min_change_s\": -1", false},
    {"min_change_s over a second", "\"min_change_s\": 1e-7", "\"min_change_s\": 2", false},
    {"min_change_s a word", "\"min_change_s\": 1e-7", "\"min_change_s\": \"small\"", false},
    {"an unknown gate key", "\"resolution\": 0.01", "\"resolution\": 0.01, \"speed\": 1", false},
    {"an unknown kernel key", "\"family\": \"gemm\"", "\"family\": \"gemm\", \"color\": 1", false},
    {"no kernels", "\"kernels\": [{", "\"kernels\": [], \"x\": [{", false},
    {"a tunable as an array", "\"TN\": [8, 4]", "\"TN\": [8]", true},
    {"a tunable as an object without a role", "\"TN\": [8, 4]", "\"TN\": {\"values\": [8, 4]}",
     true},
    {"a tunable object without values", "\"TN\": [8, 4]", "\"TN\": {\"role\": \"tile_k\"}", false},
    {"an unknown role", "\"role\": \"tile_k\"", "\"role\": \"depth\"", false},
    {"a role that is not a string", "\"role\": \"tile_k\"", "\"role\": 3", false},
    {"an extra key in a tunable object", "\"role\": \"tile_k\"",
     "\"role\": \"tile_k\", \"step\": 2", false},
    {"an empty tunable list", "\"TN\": [8, 4]", "\"TN\": []", false},
    {"a non-integer tunable value", "\"TN\": [8, 4]", "\"TN\": [8, 4.5]", false},
    {"a tunable name that is no identifier", "\"TN\": [8, 4]", "\"TN\": [8, 4], \"T-N\": [1]",
     false},
    {"every role", "\"role\": \"tile_k\"", "\"role\": \"other\"", true},
    {"constraints on the flat form's sibling (impl)",
     "\"tolerance\":", "\"constraints\": [\"1 == 1\"], \"tolerance\":", false},
    {"a constraint that is a number", "\"BM % TM == 0\"", "7", false},
    {"constraints as a string", "[\"BM % TM == 0\", \"(BM / TM) * (BN / TN) <= 1024\"]",
     "\"BM % TM == 0\"", false},
    {"no constraints",
     ",\n               \"constraints\": [\"BM % TM == 0\", \"(BM / TM) * (BN / TN) <= 1024\"]", "",
     true},
    {"host tunables with constraints", "\"tunables\": {\"UNROLL\": [1, 2]}",
     "\"tunables\": {\"UNROLL\": {\"values\": [2, 1], \"role\": \"unroll\"}}, "
     "\"constraints\": [\"UNROLL >= 1 && UNROLL <= 8\"]",
     true},
    {"defaults that break a constraint", "\"BM % TM == 0\"", "\"BM % TM == 1\"", false, true},
    {"a constraint naming a shape variable", "\"BM % TM == 0\"", "\"BM % M == 0\"", false, true},
    {"allow_empty false", "\"allow_empty\": true", "\"allow_empty\": false", false, true},
    {"allow_empty not a boolean", "\"allow_empty\": true", "\"allow_empty\": 1", false},
    {"allow_empty with timing off", "\"allow_empty\": true",
     "\"allow_empty\": true, \"timing\": \"off\"", true},
    {"allow_empty with timing gate", "\"allow_empty\": true",
     "\"allow_empty\": true, \"timing\": \"gate\"", false},
    {"a shape variable that is a string", "\"alpha\": 0.5", "\"alpha\": \"half\"", false},
    {"an unknown timing", "\"timing\": \"report\"", "\"timing\": \"sometimes\"", false},
    {"an unknown backend in a shape", "\"backends\": [\"host\"]", "\"backends\": [\"tpu\"]", false},
    {"an unknown arg role", "\"role\": \"output\"", "\"role\": \"temp\"", false},
    {"an unknown dtype", "\"type\": \"int32\", \"value\": \"M\"",
     "\"type\": \"int24\", \"value\": \"M\"", false},
    {"C scalar types", "\"type\": \"int32\", \"value\": \"M\"",
     "\"type\": \"size_t\", \"value\": \"M\"", true},
    {"an unsigned int", "\"type\": \"int32\", \"value\": \"N\"",
     "\"type\": \"unsigned int\", \"value\": \"N\"", true},
    {"a bool scalar", "\"type\": \"int32\", \"value\": \"N\"",
     "\"type\": \"bool\", \"value\": true", true},
    {"a scratch buffer", "\"role\": \"output\"}",
     "\"role\": \"output\"}, {\"name\": \"w\", \"type\": \"float*\", \"count\": \"M\", \"role\": "
     "\"scratch\"}",
     true},
    {"a buffer that is NULL on some shapes", "\"init\": \"uniform\"",
     "\"init\": \"uniform\", \"null\": \"K == 0\"", true},
    {"a buffer that is always NULL", "\"init\": \"uniform\"",
     "\"init\": \"uniform\", \"null\": true", true},
    {"null as a list", "\"init\": \"uniform\"", "\"init\": \"uniform\", \"null\": [1]", false},
    {"given values of the wrong length", "\"init\": \"uniform\"", "\"init\": [1, 2, \"K\"]", false,
     true},
    {"a formula", "\"init\": \"uniform\"",
     "\"init\": {\"formula\": \"i % (K + 1)\", \"scale\": 0.5}", true},
    {"shared draws", "\"init\": \"uniform\"",
     "\"init\": {\"dist\": \"uniform\", \"share\": \"angle\", \"apply\": \"sin\"}", true},
    {"an unknown apply", "\"init\": \"uniform\"",
     "\"init\": {\"dist\": \"uniform\", \"apply\": \"tan\"}", false},
    {"an init with neither dist nor contents", "\"init\": \"uniform\"", "\"init\": {\"mean\": 1}",
     false},
    {"a struct by value", "{\"name\": \"K\", \"type\": \"int32\", \"value\": \"K\"}",
     "{\"name\": \"p\", \"type\": \"struct\", \"align\": 8, \"fields\": [{\"name\": \"K\", "
     "\"type\": \"int64\", \"value\": \"K\"}]}",
     true},
    {"a struct without fields", "{\"name\": \"K\", \"type\": \"int32\", \"value\": \"K\"}",
     "{\"name\": \"p\", \"type\": \"struct\"}", false},
    {"a struct aligned to 3", "{\"name\": \"K\", \"type\": \"int32\", \"value\": \"K\"}",
     "{\"name\": \"p\", \"type\": \"struct\", \"align\": 3, \"fields\": [{\"name\": \"K\", "
     "\"type\": \"int64\", \"value\": \"K\"}]}",
     false},
    {"an output's own tolerance", "\"role\": \"output\"}",
     "\"role\": \"output\", \"tolerance\": {\"atol\": 0.01, \"ulp\": 4, \"scale_rel\": 0.001}}",
     true},
    {"an input's own tolerance", "\"init\": \"uniform\"",
     "\"init\": \"uniform\", \"tolerance\": {\"atol\": 0.01}", false, true},
    {"an unknown tolerance key", "\"atol\": 1e-4", "\"atol\": 1e-4, \"ulps\": 2", false},
    {"a let", "\"family\": \"gemm\"",
     "\"family\": \"gemm\", \"let\": {\"MN\": \"M * N > 0 ? M * N : 1\"}", true},
    {"a let that is no name", "\"family\": \"gemm\"",
     "\"family\": \"gemm\", \"let\": {\"1x\": \"M\"}", false},
    {"a randint of one empty range", "\"init\": \"uniform\"",
     "\"init\": {\"dist\": \"randint\", \"low\": \"K\", \"high\": \"K\"}", false, true},
    {"a grid of four dimensions", "\"grid\": [\"ceil_div(N, BN)\", \"ceil_div(M, BM)\"]",
     "\"grid\": [1, 1, 1, 1]", false},
    {"an unknown sanitizer tool", "[\"memcheck\"]", "[\"leakcheck\"]", false},
    {"an unknown oracle", "\"oracle\": \"reference\"", "\"oracle\": \"oracle\"", false},
    {"an unknown key in the reference kernel", ", \"entry\": \"gemm_ref_kernel\",",
     ", \"entry\": \"gemm_ref_kernel\", \"x\": 1,", false},
    {"an entry that is no C++ name", "\"entry\": \"gemm_host\"", "\"entry\": \"gemm host\"", false},
    {"a negative tolerance", "\"atol\": 1e-4", "\"atol\": -1", false},
};

class SchemaAgreementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* f : {"gemm.cu", "gemm.cpp", "gemm_ref.cpp", "gemm_ref.cu"})
      testing::write(dir_ / f, "// source\n");
  }
  testing::TempDir dir_;
};

TEST_F(SchemaAgreementTest, TheSchemaAndTheLoaderAgreeOnEveryCase) {
  std::vector<std::string> loader;  // "" valid, else the loader's message
  json documents = json::array();
  for (const Case& c : kCases) {
    std::string text = kBase;
    if (*c.from) {
      auto at = text.find(c.from);
      ASSERT_NE(at, std::string::npos) << "test bug in '" << c.name << "'";
      text.replace(at, std::string(c.from).size(), c.to);
    }
    auto manifest = parse_manifest(text, "kgate.json", dir_.path());
    loader.push_back(manifest.ok() ? "" : manifest.error().message);
    // The loader's JSON reading: comments stripped.
    documents.push_back(json::parse(text, nullptr, true, /*ignore_comments=*/true));
  }
  const std::string source = KGATE_SOURCE_DIR;
  CommandOptions options;
  options.timeout_s = 120;
  options.stdin_text =
      json{{"schema", source + "/docs/kgate.schema.json"}, {"documents", documents}}.dump();
  auto run = run_command({"python3", source + "/tests/support/validate_schema.py"}, options);
  ASSERT_TRUE(run.ok()) << run.error().message;
  ASSERT_TRUE(run->succeeded()) << "the schema validator did not run (" << run->describe(120)
                                << "): " << run->err << "\nrun scripts/setup";
  json schema = json::parse(run->out);
  ASSERT_EQ(schema.size(), std::size(kCases));
  for (size_t i = 0; i < std::size(kCases); ++i) {
    const Case& c = kCases[i];
    const std::string schema_says = schema[i].get<std::string>();
    EXPECT_EQ(loader[i].empty(), c.valid) << c.name << ": loader says '" << loader[i] << "'";
    const bool schema_expected = c.valid || c.loader_only;
    EXPECT_EQ(schema_says.empty(), schema_expected)
        << c.name << ": schema says '" << schema_says << "'";
  }
}

}  // namespace
}  // namespace kgate
