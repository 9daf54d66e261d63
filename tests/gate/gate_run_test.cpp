// The gate as a use case (gate/gate_run.h), in process, on real git
// repositories made with libgit2 and the host backend: a faster head passes
// with "faster" verdicts, a head whose kgate.json does not load fails with a
// report naming the revision and the JSON path, an identical head gates
// nothing (and passes when every kernel is gated), bad revisions are input
// errors that name the flag.
#include "gate/gate_run.h"

#include <gtest/gtest.h>

#include "core/exit_code.h"
#include "git_fixture.h"
#include "scale_fixture.h"
#include "support/test_support.h"

namespace kgate::testing {
namespace {

class GateRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    repo = std::make_unique<GitFixture>(dir.path() / "repo");
    repo->write("kgate.json", kManifest);
    repo->write("src/scale.cpp", kKernel);
    repo->write("src/include/common.h", "#pragma once\n#define PASSES 2\n");
    repo->write("ref/scale_ref.cpp", kReference);
    base = repo->commit("kernels");
    options.backend = "host";
    options.seed = 7;
  }

  TempDir dir;
  std::unique_ptr<GitFixture> repo;
  std::string base;
  GateRunOptions options;
};

// Nothing in the report names the temporary folders the revisions were read into.
void expect_no_scratch_paths(const GateReport& report) {
  std::string text = report.to_json().dump();
  EXPECT_EQ(text.find("kgate-gate-"), std::string::npos) << text;
}

TEST_F(GateRunTest, FasterHeadPassesWithFasterVerdicts) {
  repo->write("src/include/common.h", "#pragma once\n#define PASSES 1\n");
  std::string head = repo->commit("half the passes");
  auto result = run_gate(repo->path(), base, head, options);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->exit_code(), 0);
  EXPECT_FALSE(result->failed_check);
  const GateReport& report = result->report;
  EXPECT_EQ(report.base_commit, base);
  EXPECT_EQ(report.head_commit, head);
  ASSERT_EQ(report.kernels.size(), 1u);
  const KernelGate& k = report.kernels[0];
  EXPECT_EQ(k.kernel, "scale");
  EXPECT_EQ(k.why, "src/include/common.h changed");
  ASSERT_EQ(k.shapes.size(), 2u);
  for (const ShapeGate& s : k.shapes) {
    EXPECT_EQ(s.verdict, Verdict::kFaster) << s.shape << ": " << s.reason;
    EXPECT_FALSE(s.fails) << s.shape;
    EXPECT_LT(s.interval.estimate, 0.8) << s.shape;
  }
  EXPECT_TRUE(report.passed());
  expect_no_scratch_paths(report);
}

TEST_F(GateRunTest, BrokenHeadManifestFailsNamingTheRevisionAndTheJsonPath) {
  // A count that evaluates to 0 for a shape: the manifest does not load.
  std::string manifest = kManifest;
  manifest.replace(manifest.find("\"count\": \"n\", \"role\""), 12, "\"count\": \"n - 8192\"");
  repo->write("kgate.json", manifest);
  std::string head = repo->commit("broken manifest");
  auto result = run_gate(repo->path(), base, head, options);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->exit_code(), to_int(ExitCode::kCheckFailed));
  EXPECT_TRUE(result->failed_check);
  const GateReport& report = result->report;
  EXPECT_FALSE(report.passed());
  EXPECT_EQ(report.manifest_file, "kgate.json");
  EXPECT_EQ(report.manifest_error.rfind("head (" + head.substr(0, 7) +
                                            "): kgate.json: kernels[0].args[0].count: evaluates "
                                            "to 0 for shape 'small'",
                                        0),
            0u)
      << report.manifest_error;
  EXPECT_TRUE(report.kernels.empty());
  expect_no_scratch_paths(report);
}

TEST_F(GateRunTest, IdenticalHeadGatesNothingAndPasses) {
  repo->write("README.md", "kernels\n");
  std::string head = repo->commit("docs only");
  auto result = run_gate(repo->path(), base, head, options);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result->exit_code(), 0);
  EXPECT_TRUE(result->report.kernels.empty());
  ASSERT_FALSE(result->report.notes.empty());
  EXPECT_EQ(result->report.notes.back(), "no kernel changed between " + base + " and " + head);

  // Gated anyway (--all), the same code is checked correct and does not fail.
  options.all = true;
  options.budget_s = 0.1;
  result = run_gate(repo->path(), base, head, options);
  ASSERT_TRUE(result.ok()) << result.error().message;
  ASSERT_EQ(result->report.kernels.size(), 1u);
  for (const ShapeGate& s : result->report.kernels[0].shapes) {
    EXPECT_NE(s.verdict, Verdict::kIncorrect) << s.shape;
    EXPECT_NE(s.verdict, Verdict::kError) << s.shape << ": " << s.reason;
    EXPECT_TRUE(s.check.passed) << s.shape;
  }
  expect_no_scratch_paths(result->report);
}

TEST_F(GateRunTest, PrepareNamesTheHeadCommitBeforeMeasuring) {
  repo->write("src/include/common.h", "#pragma once\n#define PASSES 1\n");
  std::string head = repo->commit("faster");
  repo->branch("feature", head);
  auto run = GateRun::prepare(repo->path(), base, "feature", options);
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_EQ(run->head_commit(), head);
}

TEST_F(GateRunTest, BadRevisionsAreInputErrorsNamingTheFlag) {
  auto bad_base = run_gate(repo->path(), "no-such-branch", base, options);
  ASSERT_FALSE(bad_base.ok());
  EXPECT_EQ(bad_base.error().kind, ExitCode::kBadInput);
  EXPECT_NE(bad_base.error().message.find("--base"), std::string::npos) << bad_base.error().message;
  auto bad_head = run_gate(repo->path(), base, "0123456789abcdef0123456789abcdef01234567", options);
  ASSERT_FALSE(bad_head.ok());
  EXPECT_NE(bad_head.error().message.find("--head"), std::string::npos) << bad_head.error().message;
  options.kernel = "nope";
  auto bad_kernel = run_gate(repo->path(), base, base, options);
  ASSERT_FALSE(bad_kernel.ok());
  EXPECT_NE(bad_kernel.error().message.find("no kernel 'nope'"), std::string::npos)
      << bad_kernel.error().message;
}

}  // namespace
}  // namespace kgate::testing
