#include "core/workload_spec.h"

#include <gtest/gtest.h>

namespace kgate {
namespace {

using json = nlohmann::json;

Result<WorkloadSpec> parse(const std::string& text) {
  return parse_workload_spec(json::parse(text), "kgate.json");
}

TEST(WorkloadSpec, ReadsEveryField) {
  auto s = parse(R"({"build": "make", "command": "./run --out {output}", "output": "out.json",
    "phases": ["prefill", "decode", "verify"],
    "compare": [{"field": "tokens"}, {"field": "logits", "atol": 0.1}, {"field": "p", "rule": "close", "rtol": 0.5}],
    "latency": "latency_ms", "runs": 6, "sanitize_command": "./run --small --out {output}",
    "timeout_s": 30, "confidence": 0.9, "max_regression": 0.05, "phases_from": "nvtx"})");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->phases.size(), 3u);
  ASSERT_EQ(s->compare.size(), 3u);
  EXPECT_EQ(s->compare[0].rule, "equal");
  EXPECT_EQ(s->compare[1].rule, "close");  // a tolerance implies "close"
  EXPECT_DOUBLE_EQ(s->compare[2].rtol, 0.5);
  EXPECT_EQ(s->runs, 6);
  EXPECT_DOUBLE_EQ(*s->confidence, 0.9);
  EXPECT_EQ(expand_output(s->command, "/tmp/o.json"), "./run --out /tmp/o.json");
}

TEST(WorkloadSpec, ErrorsNameThePathAndWhatWasExpected) {
  struct Case {
    const char* text;
    const char* expect;
  };
  for (const Case& c : std::vector<Case>{
           {R"({"output": "o"})", "missing \"command\""},
           {R"({"command": "x"})", "missing \"output\""},
           {R"({"command": "x", "output": "o", "compare": [{"field": "t", "rule": "same"}]})",
            "workload.compare[0].rule"},
           {R"({"command": "x", "output": "o", "compare": [{"field": "t", "atol": -1}]})",
            "workload.compare[0].atol"},
           {R"({"command": "x", "output": "o", "runs": 1})", "workload.runs"},
           {R"({"command": "x", "output": "o", "phases": []})", "workload.phases"},
           {R"({"command": "x", "output": "o", "phases_from": "cupti"})", "workload.phases_from"},
           {R"({"command": "x", "output": "o", "comand": "y"})", "unknown key 'comand'"},
       }) {
    auto s = parse(c.text);
    ASSERT_FALSE(s.ok()) << c.text;
    EXPECT_NE(s.error().message.find(c.expect), std::string::npos) << s.error().message;
    EXPECT_EQ(s.error().message.rfind("kgate.json: ", 0), 0u) << s.error().message;
  }
}

}  // namespace
}  // namespace kgate
