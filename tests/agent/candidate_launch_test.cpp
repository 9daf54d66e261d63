// A candidate's own launch (agent/candidate_launch.h): read from an answer
// or a record, checked on every shape like the manifest's launch (and the
// hardware's limits), and turned into the manifest entry its side is planned
// from. Pure: the example's manifest, no GPU.
#include <gtest/gtest.h>

#include "agent/candidate_launch.h"
#include "agent/candidate_rules.h"
#include "core/manifest_loader.h"
#include "runner/launch_plan.h"
#include "support/test_support.h"

namespace kgate {
namespace {

class CandidateLaunchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto m = load_manifest(testing::example_dir());
    ASSERT_TRUE(m.ok()) << m.error().message;
    manifest_ = std::move(m.value());
    kernel_ = manifest_.kernel("rmsnorm");
    ASSERT_NE(kernel_, nullptr);
  }
  CandidateLaunch launch(const nlohmann::json& j) {
    auto l = CandidateLaunch::from_json(j);
    EXPECT_TRUE(l.has_value()) << j.dump();
    return l.value_or(CandidateLaunch{});
  }
  std::string check(const nlohmann::json& j, int64_t max_shared = 0) {
    return check_candidate_launch(launch(j), *kernel_, "cuda", {}, max_shared);
  }
  Manifest manifest_;
  const Kernel* kernel_ = nullptr;
};

TEST_F(CandidateLaunchTest, ReadsIntegersAndExpressionsAndWritesThemBack) {
  auto l = launch({{"grid", {"ceil_div(rows, 8)"}}, {"block", {32, 8}}, {"shared_bytes", 0}});
  EXPECT_EQ(l.grid, std::vector<std::string>{"ceil_div(rows, 8)"});
  EXPECT_EQ(l.block, (std::vector<std::string>{"32", "8"}));
  const nlohmann::json back = l.to_json();
  EXPECT_EQ(back["block"][0], 32) << "a plain integer stays a number in kgate.json";
  EXPECT_EQ(back["grid"][0], "ceil_div(rows, 8)");
  EXPECT_EQ(CandidateLaunch::from_json(back), l);
  EXPECT_EQ(l.text(), "grid [ceil_div(rows, 8)], block [32, 8], shared_bytes 0");

  EXPECT_FALSE(CandidateLaunch::from_json(nlohmann::json::object()).has_value());
  EXPECT_FALSE(CandidateLaunch::from_json({{"grid", {1.5}}, {"block", {32}}}).has_value());
  EXPECT_FALSE(CandidateLaunch::from_json({{"grid", {1}}}).has_value()) << "no block";
}

TEST_F(CandidateLaunchTest, TheManifestsLaunchReadsBackAsItIsWritten) {
  const CandidateLaunch m = launch_of(*kernel_->implementation("cuda"));
  EXPECT_EQ(m.grid, std::vector<std::string>{"rows"});
  EXPECT_EQ(m.block, std::vector<std::string>{"BLOCK"});
  EXPECT_EQ(check(m.to_json()), "") << "the manifest's own launch passes its own checks";
}

TEST_F(CandidateLaunchTest, AWarpPerRowLaunchIsAcceptedOnEveryShape) {
  EXPECT_EQ(check({{"grid", {"ceil_div(rows, 8)"}}, {"block", {32, 8}}}), "");
  EXPECT_EQ(check({{"grid", {"rows"}}, {"block", {"BLOCK"}}, {"shared_bytes", "BLOCK * 4"}}), "")
      << "tunables are names of the expressions, as in the manifest";
}

TEST_F(CandidateLaunchTest, WhatIsWrongIsNamedWithItsShape) {
  // Unknown name: the manifest's expression language, the manifest's check.
  std::string why = check({{"grid", {"ceil_div(rows, WARPS)"}}, {"block", {32}}});
  EXPECT_NE(why.find("launch.grid[0]"), std::string::npos) << why;
  EXPECT_NE(why.find("WARPS"), std::string::npos) << why;
  EXPECT_NE(why.find("shape '"), std::string::npos) << why;

  // Zero blocks on a shape of one row.
  why = check({{"grid", {"rows / 8"}}, {"block", {256}}});
  EXPECT_NE(why.find("not positive"), std::string::npos) << why;
  EXPECT_NE(why.find("decode-b1"), std::string::npos) << why;

  why = check({{"grid", {"rows"}}, {"block", {64, 32}}});
  EXPECT_NE(why.find("2048 threads"), std::string::npos) << why;

  why = check({{"grid", {"rows"}}, {"block", {256}}, {"shared_bytes", "cols * 64"}}, 232448);
  EXPECT_NE(why.find("this GPU's limit of 232448"), std::string::npos) << why;
  EXPECT_EQ(check({{"grid", {"rows"}}, {"block", {256}}, {"shared_bytes", "cols * 4"}}, 232448),
            "");

  why = check({{"grid", {"rows", 1, 1, 1}}, {"block", {256}}});
  EXPECT_NE(why.find("1 to 3 dimensions"), std::string::npos) << why;
  why = check({{"grid", {"rows +"}}, {"block", {256}}});
  EXPECT_NE(why.find("launch.grid[0]"), std::string::npos) << why;

  // The host backend has no launch geometry.
  why = check_candidate_launch(launch({{"grid", {1}}, {"block", {1}}}), *kernel_, "host", {});
  EXPECT_NE(why.find("leave out"), std::string::npos) << why;
}

TEST_F(CandidateLaunchTest, EachSideIsPlannedFromItsOwnLaunch) {
  auto spec = parse_candidate_launch(launch({{"grid", {"ceil_div(rows, 8)"}}, {"block", {32, 8}}}));
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  const Kernel own = kernel_with_launch(*kernel_, "cuda", *spec);
  const Shape& shape = *kernel_->shape("prefill-2k");
  const Variables tunables = kernel_->implementation("cuda")->default_tunables();
  auto mine = plan_launch(own, own.implementation("cuda"), shape, tunables);
  auto theirs = plan_launch(*kernel_, kernel_->implementation("cuda"), shape, tunables);
  ASSERT_TRUE(mine.ok() && theirs.ok());
  EXPECT_EQ(mine->dims.grid[0], 256u);
  EXPECT_EQ(mine->dims.block[0], 32u);
  EXPECT_EQ(mine->dims.block[1], 8u);
  EXPECT_EQ(theirs->dims.grid[0], 2048u) << "the manifest's kernel is not changed";
  EXPECT_EQ(theirs->dims.block[0], 256u);
  EXPECT_EQ(own.implementation("host")->source, kernel_->implementation("host")->source);
}

TEST_F(CandidateLaunchTest, AnAnswersLaunchBecomesTheCandidatesAndIsRuledOn) {
  const Implementation& impl = *kernel_->implementation("cuda");
  Candidate best;
  AgentAnswer answer;
  answer.code = "// new source";
  answer.launch = {{"grid", {"ceil_div(rows, 8)"}}, {"block", {32, 8}}};
  ProposedCandidate p = candidate_from_answer(answer, best, impl);
  EXPECT_EQ(p.invalid, "");
  ASSERT_TRUE(p.candidate.launch.has_value());
  EXPECT_EQ(launch_rule_failure(p.candidate, *kernel_, "cuda", 0), "");
  ASSERT_TRUE(kernel_for(*kernel_, "cuda", p.candidate).has_value());

  // The next answer keeps it unless it says otherwise; the manifest's own is none.
  AgentAnswer keep;
  keep.code = "// again";
  EXPECT_EQ(candidate_from_answer(keep, p.candidate, impl).candidate.launch, p.candidate.launch);
  AgentAnswer back;
  back.launch = launch_of(impl).to_json();
  EXPECT_FALSE(candidate_from_answer(back, p.candidate, impl).candidate.launch.has_value());
  EXPECT_FALSE(kernel_for(*kernel_, "cuda", Candidate{}).has_value());

  // A launch that breaks on a shape is the iteration's failure, said to the agent.
  AgentAnswer bad;
  bad.launch = {{"grid", {"rows / 8"}}, {"block", {32, 8}}};
  ProposedCandidate b = candidate_from_answer(bad, best, impl);
  const std::string why = launch_rule_failure(b.candidate, *kernel_, "cuda", 0);
  EXPECT_NE(why.find("the candidate's launch cannot be used"), std::string::npos) << why;

  AgentAnswer malformed;
  malformed.launch = {{"grid", "everything"}};
  EXPECT_NE(candidate_from_answer(malformed, best, impl).invalid.find("launch must be"),
            std::string::npos);

  // A different launch is a different candidate.
  Candidate same_source = p.candidate;
  same_source.launch.reset();
  EXPECT_NE(same_source.fingerprint(), p.candidate.fingerprint());
}

}  // namespace
}  // namespace kgate
