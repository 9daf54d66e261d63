// What the agent sees after compile failures: each distinct digest once per
// prompt (not in every result, the feedback and the re-plan again), newest
// first; when the last-results section is full, its oldest results fold to
// one line instead of the newest being cut.
#include <gtest/gtest.h>

#include "agent/agent_context.h"
#include "core/manifest_loader.h"
#include "support/test_support.h"

namespace kgate {
namespace {

size_t occurrences(const std::string& text, const std::string& word) {
  size_t n = 0;
  for (size_t p = text.find(word); p != std::string::npos; p = text.find(word, p + 1)) ++n;
  return n;
}

class AgentContextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto m = load_manifest(kgate::testing::fixtures_dir() / "agent" / "sumsq");
    ASSERT_TRUE(m.ok()) << m.error().message;
    manifest_ = std::move(m.value());
    kernel_ = manifest_.kernel("rmsnorm_f32");
  }
  IterationRecord compile_failure(int index, const std::string& digest) {
    IterationRecord it;
    it.index = index;
    it.done = true;
    it.outcome = "compile-error";
    it.compile_digest = digest;
    it.failure = "the candidate does not compile";
    it.plan = {{"change", "attempt " + std::to_string(index)}};
    return it;
  }
  ContextInput input(const std::vector<IterationRecord>& its) {
    ContextInput in;
    in.manifest = &manifest_;
    in.kernel = kernel_;
    in.impl = kernel_->implementation("host");
    in.best_source = "void rmsnorm_f32() {}";
    in.iterations = &its;
    in.iteration = static_cast<int>(its.size()) + 1;
    in.max_iterations = 8;
    if (!its.empty())
      in.feedback = "iteration " + std::to_string(its.back().index) + ": " + its.back().failure;
    return in;
  }
  Manifest manifest_;
  const Kernel* kernel_ = nullptr;
};

TEST_F(AgentContextTest, EachDistinctDigestOncePerPromptNewestFirst) {
  const std::string a = "1 error\ncandidate-A-it1.cpp:3:1: error: expected ';' (digest A)\n";
  const std::string b = "1 error\ncandidate-B-it4.cpp:9:2: error: 'foo' undeclared (digest B)\n";
  std::vector<IterationRecord> its = {compile_failure(1, a), compile_failure(2, a),
                                      compile_failure(3, a), compile_failure(4, b)};
  // A record written before digests were listed once carried it in the failure too.
  its[2].failure = "the candidate does not compile:\n" + a;
  ContextInput in = input(its);
  AgentRequest propose = build_propose_request(in);
  EXPECT_EQ(occurrences(propose.prompt, "(digest A)"), 1u) << propose.prompt;
  EXPECT_EQ(occurrences(propose.prompt, "(digest B)"), 1u) << propose.prompt;
  EXPECT_LT(propose.prompt.find("(digest B)"), propose.prompt.find("(digest A)")) << "newest first";
  EXPECT_NE(propose.prompt.find("Compiler digest 2 (iterations 3, 2, 1)"), std::string::npos)
      << propose.prompt;
  // The feedback points at the digest instead of repeating it.
  EXPECT_NE(propose.prompt.find("iteration 4: the candidate does not compile (compiler digest 1"),
            std::string::npos)
      << propose.prompt;
  // The re-plan request adds no second copy.
  AgentRequest replan = build_replan_request(in, {a, a, b});
  EXPECT_EQ(occurrences(replan.prompt, "(digest A)"), 1u) << replan.prompt;
  EXPECT_EQ(occurrences(replan.prompt, "(digest B)"), 1u) << replan.prompt;
  EXPECT_NE(replan.prompt.find("Re-plan required"), std::string::npos);
}

TEST_F(AgentContextTest, ACappedSectionDropsTheOldestResultsNotTheNewest) {
  std::vector<IterationRecord> its;
  for (int i = 1; i <= 4; ++i) {
    IterationRecord it = compile_failure(i, "");
    it.outcome = "no-gain";
    it.reflection = std::string(900, 'r') + " reflection of iteration " + std::to_string(i);
    its.push_back(it);
  }
  ContextInput in = input(its);
  in.limits.recent_chars = 2500;  // room for two of the four blocks
  AgentRequest r = build_propose_request(in);
  const size_t last = r.prompt.find("## Last results");
  ASSERT_NE(last, std::string::npos);
  const std::string recent = r.prompt.substr(last, r.prompt.find("\n## ", last + 1) - last);
  EXPECT_NE(recent.find("reflection of iteration 4"), std::string::npos) << recent;
  EXPECT_NE(recent.find("reflection of iteration 3"), std::string::npos) << recent;
  EXPECT_EQ(recent.find("reflection of iteration 1"), std::string::npos) << recent;
  EXPECT_LT(recent.find("iteration 4"), recent.find("iteration 3")) << "newest first";
  // The results that did not fit are still named, one line each.
  EXPECT_NE(r.prompt.find("- iteration 1: no-gain"), std::string::npos) << r.prompt;
  EXPECT_NE(r.prompt.find("- iteration 2: no-gain"), std::string::npos) << r.prompt;
}

ShapeEvaluation timed_shape(const std::string& name, ShapeVerdict verdict, double ratio,
                            bool counts = true) {
  ShapeEvaluation s;
  s.shape = name;
  s.verdict = verdict;
  s.ratio = s.ratio_lo = s.ratio_hi = ratio;
  s.best_s = 10e-6;
  s.candidate_s = 10e-6 * ratio;
  s.counts = counts;
  return s;
}

// A capable model read "slower (speedup 1.08x)" and had to guess that one
// slower shape sank its candidate: the request states the gate's whole rule,
// the shapes it times, and which rule kept each correct candidate out.
TEST_F(AgentContextTest, TheRequestSaysTheWholeGateRuleAndWhyACandidateWasNotKept) {
  IterationRecord it;
  it.index = 1;
  it.done = true;
  it.outcome = "slower";
  it.plan = {{"change", "register-cached rows"}};
  Evaluation e;
  e.compiled = e.correct = true;
  e.shapes = {timed_shape("rows-64", ShapeVerdict::kSlower, 1.052),
              timed_shape("odd-5x4097", ShapeVerdict::kFaster, 0.6, /*counts=*/false)};
  e.geomean_ratio = 1.052;
  it.evaluation = e;
  std::vector<IterationRecord> its = {it};
  ContextInput in = input(its);
  in.best_timing = {timed_shape("rows-64", ShapeVerdict::kSame, 1),
                    timed_shape("odd-5x4097", ShapeVerdict::kSame, 1, /*counts=*/false)};
  const std::string prompt = build_propose_request(in).prompt;
  // The manifest's policy: 3% regression allowed, 5% gain required, 95% confidence.
  EXPECT_NE(prompt.find("no timed shape is more than 3% slower than the current best (one such "
                        "shape rejects it"),
            std::string::npos)
      << prompt;
  EXPECT_NE(prompt.find("at most 0.95 (5% faster)"), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("Timed in this episode: rows-64."), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("report only (neither win nor lose): odd-5x4097."), std::string::npos)
      << prompt;
  EXPECT_NE(prompt.find("  not kept: rows-64 5.2% slower: more than the allowed 3%"),
            std::string::npos)
      << prompt;
  EXPECT_NE(
      prompt.find("odd-5x4097: faster ratio 0.6 [0.6, 0.6] (10.00 us -> 6.00 us), report only"),
      std::string::npos)
      << prompt;

  // Faster everywhere it counts, but not by enough: the geomean rule is named.
  its[0].evaluation->shapes[0] = timed_shape("rows-64", ShapeVerdict::kFaster, 0.97);
  its[0].evaluation->geomean_ratio = 0.97;
  const std::string short_of = build_propose_request(in).prompt;
  EXPECT_NE(short_of.find("not kept: the geomean speedup 1.03x is under the 1.05x required"),
            std::string::npos)
      << short_of;
  // An accepted candidate has no such line.
  its[0].accepted = true;
  EXPECT_EQ(build_propose_request(in).prompt.find("not kept:"), std::string::npos);
}

}  // namespace
}  // namespace kgate
