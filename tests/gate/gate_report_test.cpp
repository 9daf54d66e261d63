// Reports: failures first in Markdown, size-bounded; JUnit counts; GitHub
// annotations escaped as workflow commands require.
#include <gtest/gtest.h>

#include "gate/gate_report.h"

namespace kgate {
namespace {

ShapeGate shape(const std::string& name, Verdict v, double est, bool fails) {
  ShapeGate s;
  s.shape = name;
  s.phase = "decode";
  s.verdict = v;
  s.fails = fails;
  s.interval.estimate = est;
  s.interval.low = est * 0.99;
  s.interval.high = est * 1.01;
  s.interval.pairs = 100;
  s.base_median_s = 10e-6;
  s.head_median_s = 10e-6 * est;
  if (fails) s.reason = "slower, 100% <more> than allowed";
  return s;
}

GateReport sample_report() {
  GateReport r;
  r.base = "main";
  r.head = "pr";
  r.base_commit = std::string(40, 'a');
  r.head_commit = std::string(40, 'b');
  r.manifest_dir = "csrc";
  KernelGate k;
  k.kernel = "rmsnorm";
  k.source = "kernels/rmsnorm.cu";
  k.source_line = 12;
  k.head_compiled = true;
  k.shapes = {shape("ok-shape", Verdict::kSame, 1.0, false),
              shape("slow-shape", Verdict::kSlower, 2.0, true)};
  r.kernels.push_back(k);
  KernelGate broken;
  broken.kernel = "softmax";
  broken.source = "kernels/softmax.cu";
  broken.head_compile_error = "softmax.cu:3: error: expected ';'\n";
  r.kernels.push_back(broken);
  return r;
}

TEST(GateReport, MarkdownPutsFailuresFirst) {
  GateReport r = sample_report();
  std::string md = render_markdown(r);
  EXPECT_NE(md.find("## kgate: failed"), std::string::npos);
  size_t slow = md.find("| rmsnorm | slow-shape"), ok = md.find("| rmsnorm | ok-shape"),
         broken = md.find("| softmax |");
  ASSERT_NE(slow, std::string::npos);
  ASSERT_NE(ok, std::string::npos);
  EXPECT_LT(slow, ok);
  EXPECT_LT(broken, ok);
  EXPECT_NE(md.find("+100.0% [+98.0, +102.0]"), std::string::npos) << md;
  EXPECT_NE(md.find("**slower (fail)**"), std::string::npos);
  EXPECT_NE(md.find("### Failures"), std::string::npos);
}

TEST(GateReport, AShapeAtTheTimerFloorSaysWhyItIsTheSame) {
  GateReport r = sample_report();
  ShapeGate tiny = shape("edge-1x1", Verdict::kSame, 1.23, false);
  tiny.reason = "+23 ns, below the 100 ns floor (min_change_s)";
  r.kernels[0].shapes.push_back(tiny);
  std::string md = render_markdown(r);
  EXPECT_NE(md.find("| same (+23 ns, below the 100 ns floor (min_change_s)) |"), std::string::npos)
      << md;
}

TEST(GateReport, MarkdownStaysUnderTheLimit) {
  GateReport r = sample_report();
  for (int i = 0; i < 2000; ++i)
    r.kernels[0].shapes.push_back(shape("s" + std::to_string(i), Verdict::kSame, 1, false));
  std::string md = render_markdown(r, 65000);
  EXPECT_LE(md.size(), 65000u);
  EXPECT_NE(md.find("more rows left out"), std::string::npos);
  EXPECT_NE(md.find("slow-shape"), std::string::npos);  // failures survive the cut
}

TEST(GateReport, JunitCountsAndEscapes) {
  std::string xml = render_junit(sample_report());
  EXPECT_NE(xml.find("<testsuites name=\"kgate gate\" tests=\"3\" failures=\"2\" errors=\"0\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("&lt;more&gt;"), std::string::npos);
  EXPECT_EQ(xml.find("<more>"), std::string::npos);
}

TEST(GateReport, GithubAnnotationsPointAtTheSource) {
  std::string a = render_github_annotations(sample_report());
  EXPECT_NE(a.find("::error file=csrc/kernels/rmsnorm.cu,line=12,title=kgate%3A rmsnorm slower on "
                   "slow-shape::slower, 100%25 <more> than allowed"),
            std::string::npos)
      << a;
  EXPECT_NE(a.find("::error file=csrc/kernels/softmax.cu,line=1,title=kgate%3A softmax does not "
                   "compile::softmax.cu:3: "
                   "error: expected ';'%0A"),
            std::string::npos)
      << a;
}

TEST(GateReport, JsonRoundTrip) {
  GateReport r = sample_report();
  GateReport back = GateReport::from_json(nlohmann::json::parse(r.to_json().dump()));
  EXPECT_EQ(back.to_json(), r.to_json());
  EXPECT_FALSE(back.passed());
  EXPECT_EQ(back.kernels[0].overall(), Verdict::kSlower);
}

TEST(GateReport, AcceptRegressionPassesOnlySlowerShapes) {
  GateReport r = sample_report();
  r.pull_number = 42;
  r.kernels[0].shapes.push_back(shape("wrong-shape", Verdict::kIncorrect, 1.0, true));
  EXPECT_EQ(accept_regressions(r, "/kgate accept-regression by alice"), 1);
  const auto& shapes = r.kernels[0].shapes;
  EXPECT_FALSE(shapes[1].fails);
  EXPECT_TRUE(shapes[1].accepted_regression);
  EXPECT_TRUE(shapes[2].fails);  // incorrect stays a failure
  EXPECT_FALSE(shapes[2].accepted_regression);
  EXPECT_FALSE(r.passed());  // and softmax still does not compile
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes.back().find("by alice"), std::string::npos);

  // Both survive the JSON round trip; the Markdown names the pull request and the acceptance.
  GateReport back = GateReport::from_json(nlohmann::json::parse(r.to_json().dump()));
  EXPECT_EQ(back.pull_number, 42);
  EXPECT_TRUE(back.kernels[0].shapes[1].accepted_regression);
  std::string md = render_markdown(back);
  EXPECT_NE(md.find("Pull request #42"), std::string::npos) << md;
  EXPECT_NE(md.find("slower (regression accepted)"), std::string::npos) << md;

  GateReport only_slower = sample_report();
  only_slower.kernels.pop_back();
  EXPECT_FALSE(only_slower.passed());
  accept_regressions(only_slower, "x");
  EXPECT_TRUE(only_slower.passed());
}

TEST(GateReport, ABrokenHeadManifestFailsEveryReport) {
  GateReport r;
  r.base = "main";
  r.head = "pr";
  r.base_commit = std::string(40, 'a');
  r.head_commit = std::string(40, 'b');
  r.manifest_dir = "csrc";
  r.manifest_error =
      "head (bbbbbbb): kgate.json: kernels[2].launch.grid[0]: evaluates to 0 for shape 'edge'";
  EXPECT_FALSE(r.passed());
  std::string md = render_markdown(r);
  EXPECT_NE(md.find("## kgate: failed"), std::string::npos);
  EXPECT_NE(md.find("kernels[2].launch.grid[0]: evaluates to 0"), std::string::npos) << md;
  std::string junit = render_junit(r);
  EXPECT_NE(junit.find("tests=\"1\" failures=\"1\""), std::string::npos) << junit;
  std::string annotations = render_github_annotations(r);
  EXPECT_EQ(annotations.rfind("::error file=csrc/kgate.json,line=1,", 0), 0u) << annotations;
  GateReport back = GateReport::from_json(r.to_json());
  EXPECT_EQ(back.manifest_error, r.manifest_error);
  EXPECT_FALSE(back.passed());
}

TEST(GateReport, BaseNotesAndShapeListChangesAreShown) {
  GateReport r = sample_report();
  r.kernels[0].notes = {"head drops shapes large and odd of the base: no longer checked"};
  ShapeGate fixed = shape("fixed-shape", Verdict::kSlower, 1.5, false);
  fixed.base_note = "the base is itself incorrect on this shape: element 3 of 'out' is 2";
  ShapeGate untimed = shape("new-shape", Verdict::kNew, 1.0, false);
  untimed.interval = RatioInterval{};
  untimed.reason = "not timed against the base: the head adds argument 'bias'";
  r.kernels[0].shapes.push_back(fixed);
  r.kernels[0].shapes.push_back(untimed);
  std::string md = render_markdown(r);
  EXPECT_NE(md.find("- rmsnorm: head drops shapes large and odd"), std::string::npos) << md;
  EXPECT_NE(md.find("### The base"), std::string::npos) << md;
  EXPECT_NE(md.find("**rmsnorm / fixed-shape**: the base is itself incorrect"), std::string::npos)
      << md;
  EXPECT_NE(md.find("new (not timed against the base: the head adds argument 'bias')"),
            std::string::npos)
      << md;
  EXPECT_NE(render_junit(r).find("(base: the base is itself incorrect"), std::string::npos);
  KernelGate back = KernelGate::from_json(r.kernels[0].to_json());
  EXPECT_EQ(back.notes, r.kernels[0].notes);
  EXPECT_EQ(back.shapes[2].base_note, fixed.base_note);
}

TEST(GateReport, RewritePathsReachesEveryMessage) {
  GateReport r = sample_report();
  r.notes = {"the base's kgate.json does not load (/tmp/kgate-gate-x/base/kgate.json)"};
  r.kernels[1].head_compile_error = "/tmp/kgate-gate-x/head/kernels/softmax.cu:3: error";
  r.kernels[0].shapes[1].reason = "see /tmp/kgate-gate-x/head/x";
  r.kernels[0].shapes[1].base_note = "/tmp/kgate-gate-x/base/y";
  r.workload = {{"reason", "built in /tmp/kgate-gate-x/head/build"}};
  rewrite_paths(r, "/tmp/kgate-gate-x/head/", "");
  rewrite_paths(r, "/tmp/kgate-gate-x/base/", "");
  EXPECT_EQ(r.to_json().dump().find("kgate-gate-"), std::string::npos) << r.to_json().dump(1);
  EXPECT_EQ(r.kernels[1].head_compile_error, "kernels/softmax.cu:3: error");
}

}  // namespace
}  // namespace kgate
