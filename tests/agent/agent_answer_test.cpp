// Parsing agents' answers: fences, text around the code, JSON, no code.
#include <gtest/gtest.h>

#include "agent/agent_answer.h"

namespace kgate {
namespace {

TEST(AgentAnswer, SectionsFencedCodeAndSettings) {
  auto a = parse_agent_answer(
      "Sure! Here is my analysis.\n\n**BOTTLENECK:** The sum is one dependent chain. It is "
      "latency-bound. "
      "Each add waits. A fourth sentence is cut.\n"
      "CHANGE: use 8 partial sums\nso the loop vectorizes.\nEXPECTED GAIN: 2x\nRISKS: none\n\n"
      "```cpp\n#include <cmath>\nvoid k(float* o) { o[0] = 1; }\n```\n\n```json\n{\"tunables\": "
      "{\"ACC\": 8}, "
      "\"flags\": [\"-O3\"]}\n```\nHope this helps.");
  ASSERT_TRUE(a.code);
  EXPECT_EQ(*a.code, "#include <cmath>\nvoid k(float* o) { o[0] = 1; }\n");
  EXPECT_EQ(a.bottleneck, "The sum is one dependent chain. It is latency-bound. Each add waits.");
  EXPECT_EQ(a.change, "use 8 partial sums so the loop vectorizes.");
  EXPECT_EQ(a.expected_gain, "2x");
  EXPECT_EQ(a.tunables.at("ACC"), 8);
  ASSERT_EQ(a.flags.size(), 1u);
  EXPECT_EQ(a.flags[0], "-O3");
}

TEST(AgentAnswer, StructuredJsonAnswer) {
  auto a = parse_agent_answer(
      R"({"bottleneck":"memory","change":"vectorize","expected_gain":"1.5x","risks":"tails",)"
      R"("code":"void k() {}\n","tunables":{"VEC":4},"flags":[]})");
  ASSERT_TRUE(a.code);
  EXPECT_EQ(*a.code, "void k() {}\n");
  EXPECT_EQ(a.change, "vectorize");
  EXPECT_EQ(a.tunables.at("VEC"), 4);
}

TEST(AgentAnswer, JsonInAFenceWithFencedCodeInside) {
  auto a = parse_agent_answer(
      "Here:\n```json\n{\"bottleneck\":\"b\",\"code\":\"```cuda\\nvoid k(){}\\n```\"}\n```\n");
  ASSERT_TRUE(a.code);
  EXPECT_EQ(*a.code, "void k(){}\n");
}

TEST(AgentAnswer, LongestCodeFenceWinsAndUnclosedFenceRunsToTheEnd) {
  auto a = parse_agent_answer("```\nx\n```\ntext\n```c++\nvoid kernel() {\n  long body;\n}\n");
  ASSERT_TRUE(a.code);
  EXPECT_EQ(*a.code, "void kernel() {\n  long body;\n}\n");
}

TEST(AgentAnswer, BareCodeWithoutFences) {
  auto a = parse_agent_answer(
      "I would write:\n#include <cstdint>\nvoid k(int* o) {\n  o[0] = 1;\n}\nThat's all.");
  ASSERT_TRUE(a.code);
  EXPECT_EQ(*a.code, "#include <cstdint>\nvoid k(int* o) {\n  o[0] = 1;\n}\n");
}

TEST(AgentAnswer, NoCodeAtAll) {
  auto a = parse_agent_answer(
      "BOTTLENECK: memory.\nCHANGE: I think you should vectorize, but I will not write it.");
  EXPECT_FALSE(a.code);
  EXPECT_EQ(a.bottleneck, "memory.");
  EXPECT_FALSE(parse_agent_answer("").code);
  EXPECT_FALSE(parse_agent_answer("{not json").code);
}

}  // namespace
}  // namespace kgate
