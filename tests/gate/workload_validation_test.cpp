// In-model validation without a GPU: the comparison rules on workload
// outputs in the example workload's format (tests/fixtures/workload/out_*.json:
// the base, a candidate within tolerance, one whose tokens diverge), the
// per-phase latency verdicts, and the whole validation on a workload that
// is a shell script whose output depends on the kernel source it was built with.
#include "gate/workload_validation.h"

#include <gtest/gtest.h>

#include <random>

#include "agent/in_model_check.h"
#include "core/manifest_loader.h"
#include "support/test_support.h"

namespace kgate {
namespace {

using json = nlohmann::json;

json fixture(const std::string& name) {
  return json::parse(testing::read(testing::fixtures_dir() / "workload" / name));
}

std::vector<OutputComparison> llm_rules() {
  auto spec = load_manifest(testing::example_dir());
  EXPECT_TRUE(spec.ok());
  auto workload = workload_spec(*spec);
  EXPECT_TRUE(workload.has_value());
  return workload ? workload->compare
                  : std::vector<OutputComparison>{};  // the example manifest's own rules
}

TEST(WorkloadComparison, IdenticalOutputsMatch) {
  json base = fixture("out_base.json");
  auto r = compare_workload_outputs(base, base, llm_rules());
  EXPECT_TRUE(r.matched) << r.summary();
  EXPECT_EQ(r.fields.size(), 3u);
  EXPECT_NE(r.summary().find("tokens equal"), std::string::npos);
}

TEST(WorkloadComparison, RoundingDifferencesWithinToleranceMatch) {
  auto r =
      compare_workload_outputs(fixture("out_base.json"), fixture("out_close.json"), llm_rules());
  EXPECT_TRUE(r.matched) << r.summary();
  const FieldComparison& logits = r.fields[1];
  EXPECT_EQ(logits.field, "logits");
  EXPECT_GT(logits.max_abs_error, 0);  // they do differ, within the tolerance
  EXPECT_LE(logits.max_abs_error, 0.05);
}

TEST(WorkloadComparison, DivergedTokensAreReportedWhereTheyDiverge) {
  json base = fixture("out_base.json"), diverged = fixture("out_diverged.json");
  auto r = compare_workload_outputs(base, diverged, llm_rules());
  EXPECT_FALSE(r.matched);
  const FieldComparison& tokens = r.fields[0];
  EXPECT_FALSE(tokens.passed);
  size_t first = 0;
  while (base["tokens"][first] == diverged["tokens"][first]) ++first;
  EXPECT_EQ(tokens.first_mismatch, long(first));
  EXPECT_NE(tokens.detail.find("index " + std::to_string(first)), std::string::npos);
  EXPECT_FALSE(r.fields[1].passed);  // logits too
  EXPECT_EQ(r.summary().rfind("tokens", 0), 0u);
}

TEST(WorkloadComparison, TolerancesAreAppliedAsWritten) {
  json base = {{"x", {1.0, 2.0, -4.0}}}, cand = {{"x", {1.01, 2.0, -4.0}}};
  EXPECT_FALSE(compare_workload_outputs(base, cand, {{"x", "close", 0.005, 0}}).matched);
  EXPECT_TRUE(compare_workload_outputs(base, cand, {{"x", "close", 0.011, 0}}).matched);
  EXPECT_TRUE(compare_workload_outputs(base, cand, {{"x", "close", 0, 0.011}}).matched);
  EXPECT_FALSE(compare_workload_outputs(base, cand, {{"x", "equal", 0, 0}}).matched);
  // NaN (null in JSON) never passes, a missing field fails, lengths must agree.
  json nan = {{"x", {1.0, nullptr, -4.0}}};
  EXPECT_FALSE(compare_workload_outputs(base, nan, {{"x", "close", 1e9, 1e9}}).matched);
  EXPECT_FALSE(compare_workload_outputs(base, json::object(), {{"x", "close", 1, 1}}).matched);
  json shorter = {{"x", {1.0, 2.0}}};
  EXPECT_FALSE(compare_workload_outputs(base, shorter, {{"x", "close", 1, 1}}).matched);
}

std::vector<double> noisy(double center, int n, std::mt19937& rng) {
  std::normal_distribution<double> noise(0, center * 0.005);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(center + noise(rng));
  return v;
}

TEST(WorkloadLatency, VerdictsFollowTheInterval) {
  std::mt19937 rng(3);
  auto base = noisy(10, 16, rng);
  auto faster = compare_phase_latency("decode", base, noisy(9, 16, rng), 0.95, 0.03);
  EXPECT_EQ(faster.verdict, "faster");
  EXPECT_LT(faster.ratio.high, 1);
  auto slower = compare_phase_latency("decode", base, noisy(11, 16, rng), 0.95, 0.03);
  EXPECT_EQ(slower.verdict, "slower");
  auto same = compare_phase_latency("decode", base, noisy(10, 16, rng), 0.95, 0.03);
  EXPECT_EQ(same.verdict, "same");
  auto few = compare_phase_latency("decode", {10}, {9}, 0.95, 0.03);
  EXPECT_EQ(few.verdict, "inconclusive");
}

TEST(WorkloadLatency, SamplesAreReadFromNumbersOrArrays) {
  json out = {{"latency_ms", {{"prefill", {1.0, 2.0}}, {"decode", 3.5}}}};
  EXPECT_EQ(latency_samples(out, "latency_ms", "prefill"), (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(latency_samples(out, "latency_ms", "decode"), (std::vector<double>{3.5}));
  EXPECT_TRUE(latency_samples(out, "latency_ms", "other").empty());
  EXPECT_TRUE(latency_samples(out, "", "decode").empty());
}

// A kernel repository whose "workload" is a shell script: the build copies
// the kernel source to build/, the run writes tokens and logits (changed when
// the source says WRONG) and a decode latency (lower when it says FAST).
struct ScriptWorkload : ::testing::Test {
  void SetUp() override {
    root = dir.path() / "repo";
    testing::write(root / "kgate.json", R"~({
  "kernels": [{
    "name": "k",
    "impl": {"cuda": {"source": "csrc/k.cu", "entry": "k",
                      "launch": {"grid": ["n"], "block": ["BLOCK"]}, "tunables": {"BLOCK": [128, 256]}},
             "host": {"source": "csrc/k.cpp", "entry": "k"}},
    "args": [{"name": "out", "type": "float*", "count": "n", "role": "output"},
             {"name": "n", "type": "int32", "value": "n"}],
    "shapes": [{"name": "s", "phase": "decode", "n": 4}],
    "reference": {"source": "ref.cpp", "entry": "k_ref"}
  }],
  "workload": {
    "build": "mkdir -p build && cp csrc/k.cu build/k.cu",
    "command": "sh run.sh {output}",
    "output": "build/out.json",
    "compare": [{"field": "tokens", "rule": "equal"}, {"field": "logits", "atol": 0.01}],
    "latency": "latency_ms",
    "runs": 3
  }
})~");
    testing::write(root / "run.sh", R"~(
if grep -q WRONG build/k.cu; then tokens="[1, 2, 9]"; logits="[0.5, 0.25]"; else tokens="[1, 2, 3]"; logits="[0.5, 0.2501]"; fi
# Latency figures that drift from run to run the same way in both trees
# (a counter per tree); a FAST kernel saves 20%.
base=10; if grep -q FAST build/k.cu; then base=8; fi
n=$(cat build/count 2>/dev/null || echo 0); n=$((n + 1)); echo $n > build/count
d1=$(awk "BEGIN{print $base + ($n * 7 % 10) / 100}")
d2=$(awk "BEGIN{print $base + ($n * 3 % 10) / 100}")
echo "{\"tokens\": $tokens, \"logits\": $logits, \"latency_ms\": {\"decode\": [$d1, $d2], \"prefill\": [5, 5]}, \"block\": \"$(grep -m1 'define BLOCK' build/k.cu)\"}" > "$1"
)~");
    testing::write(root / "csrc/k.cu", "// the original kernel\n");
    testing::write(root / "csrc/k.cpp", "");
    testing::write(root / "ref.cpp", "");
    auto m = load_manifest(root);
    ASSERT_TRUE(m.ok()) << m.error().message;
    manifest = std::move(m.value());
  }
  Result<WorkloadValidation> validate(const std::string& source, json tunables = json::object()) {
    WorkloadValidationOptions options;
    options.confidence = 0.9;
    return validate_candidate_in_workload(manifest, manifest.kernels[0], source, tunables, options,
                                          root / ".kgate");
  }
  testing::TempDir dir;
  std::filesystem::path root;
  Manifest manifest;
};

TEST_F(ScriptWorkload, AFasterCorrectCandidatePassesWithItsGain) {
  auto v = validate("// FAST version\n", {{"BLOCK", 256}});
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(v->status, "passed") << v->reason;
  EXPECT_TRUE(v->outputs.matched);
  ASSERT_EQ(v->phases.size(), 2u);  // prefill, decode in the spec's default order
  EXPECT_EQ(v->phases[1].phase, "decode");
  EXPECT_EQ(v->phases[1].verdict, "faster");
  EXPECT_NEAR(v->phases[1].ratio.estimate, 0.8, 0.01);
  EXPECT_EQ(v->phases[1].base_ms.size(), 6u);  // 3 runs x 2 figures, paired
  EXPECT_EQ(v->phases[0].verdict, "same");     // identical figures in both
  std::string md = workload_validation_markdown(v->to_json());
  EXPECT_NE(md.find("In-model validation"), std::string::npos);
  EXPECT_NE(md.find("| decode |"), std::string::npos);
}

TEST_F(ScriptWorkload, AWrongCandidateIsCaughtByItsOutput) {
  auto v = validate("// FAST but WRONG\n");
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(v->status, "output_changed");
  EXPECT_FALSE(v->proposable());
  EXPECT_NE(v->reason.find("tokens"), std::string::npos) << v->reason;
}

TEST_F(ScriptWorkload, ACandidateThatGainsNothingEndToEndIsNotProposed) {
  auto v = validate("// another correct version\n");
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(v->status, "no_gain") << v->reason;
}

TEST_F(ScriptWorkload, TheCandidateIsBuiltWithItsTunables) {
  EXPECT_EQ(with_tunable_defines("x\n", manifest.kernels[0].implementations[0], {{"BLOCK", 256}})
                    .find("#define BLOCK 256\n") != std::string::npos,
            true);
  std::string base = with_tunable_defines("x\n", manifest.kernels[0].implementations[0], {});
  EXPECT_NE(base.find("#define BLOCK 128\n"), std::string::npos);  // the manifest's default
  // The original tree is left alone.
  EXPECT_EQ(testing::read(root / "csrc/k.cu"), "// the original kernel\n");
}

TEST_F(ScriptWorkload, ACandidateThatDoesNotBuildFails) {
  testing::write(root / "kgate.json",
                 testing::read(root / "kgate.json")
                     .replace(testing::read(root / "kgate.json").find("\"build\": \""), 10,
                              "\"build\": \"! grep -q BROKEN csrc/k.cu && "));
  auto m = load_manifest(root);
  ASSERT_TRUE(m.ok()) << m.error().message;
  manifest = std::move(m.value());
  auto v = validate("// BROKEN\n");
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(v->status, "failed");
  EXPECT_NE(v->reason.find("building the candidate"), std::string::npos) << v->reason;
}

}  // namespace
}  // namespace kgate
