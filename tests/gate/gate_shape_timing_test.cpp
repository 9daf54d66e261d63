// `kgate gate` end to end (host backend, real git repositories) on what a
// shape's timing may do: a head slower only on a report-only shape passes
// and says why, an untimed shape is checked and not timed, the same head
// fails when the shape gates; and which oracle judges each shape when the
// base may judge the large ones.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "git_fixture.h"
#include "support/test_support.h"

namespace kgate::testing {
namespace {

// One pass normally; head makes the odd (edge) shape do SLOW_ODD passes.
const char* kScale = R"(#include <kgate_host.h>

#include <cmath>
#include <cstdint>

#ifndef SLOW_ODD
#define SLOW_ODD 1
#endif

void scale(float* out, const float* x, int32_t n) {
  const int passes = n == 4099 ? SLOW_ODD : 1;
  for (int p = 0; p < passes; ++p) {
    for (int32_t i = 0; i < n; ++i) out[i] = std::sqrt(x[i] * x[i] + 1.0f) * 2.0f;
    asm volatile("" : : "r"(out) : "memory");
  }
}
)";

const char* kReference = R"(#include <kgate_host.h>

#include <cmath>
#include <cstdint>

void scale_ref(double* out, const float* x, int32_t n) {
  for (int32_t i = 0; i < n; ++i) out[i] = std::sqrt(double(x[i]) * x[i] + 1.0) * 2.0;
}
)";

// `gate` is the manifest's gate section.
std::string manifest(const std::string& gate) {
  return R"({
  "kernels": [{
    "name": "scale",
    "impl": {"host": {"source": "src/scale.cpp", "entry": "scale"}},
    "args": [
      {"name": "out", "type": "float32*", "count": "n", "role": "output"},
      {"name": "x",   "type": "float32*", "count": "n"},
      {"name": "n",   "type": "int32",    "value": "n"}
    ],
    "shapes": [
      {"name": "small", "phase": "decode",  "n": 8192},
      {"name": "large", "phase": "prefill", "n": 65536},
      {"name": "odd",   "phase": "edge",    "n": 4099},
      {"name": "one",   "phase": "edge",    "n": 1, "timing": "off"}
    ],
    "reference": {"source": "ref/scale_ref.cpp", "entry": "scale_ref"},
    "tolerance": {"atol": 1e-4, "rtol": 1e-4}
  }],
  "gate": )" +
         gate +
         R"(
}
)";
}

const char* kReportEdges =
    R"({"max_regression": 0.10, "min_improvement": 0.10, "budget_s": 0.3,
        "timing_by_phase": {"edge": "report"}})";
const char* kGateEdges = R"({"max_regression": 0.10, "min_improvement": 0.10, "budget_s": 0.3})";

class GateShapeTiming : public ::testing::Test {
 protected:
  // A repository whose base is kScale under `gate`, and a head whose odd
  // shape is 4x slower; returns the head commit.
  std::string slower_odd_head(const std::string& gate) {
    repo = std::make_unique<GitFixture>(dir.path() / "repo");
    repo->write("kgate.json", manifest(gate));
    repo->write("src/scale.cpp", kScale);
    repo->write("ref/scale_ref.cpp", kReference);
    base = repo->commit("kernels");
    repo->write("src/scale.cpp", std::string("#define SLOW_ODD 4\n") + kScale);
    return repo->commit("slower on the odd shape");
  }
  CommandOutcome gate(const std::string& head, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"gate",
                                     "--repo",
                                     repo->path().string(),
                                     "--base",
                                     base,
                                     "--head",
                                     head,
                                     "--backend",
                                     "host",
                                     "--json",
                                     (dir / "report.json").string(),
                                     "--markdown",
                                     (dir / "gate.md").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_kgate(args);
  }
  nlohmann::json shape(const std::string& name) {
    nlohmann::json j = nlohmann::json::parse(read(dir / "report.json"));
    for (const auto& s : j["kernels"][0]["shapes"])
      if (s["shape"] == name) return s;
    ADD_FAILURE() << "no shape " << name << " in " << j.dump(1);
    return {};
  }

  TempDir dir;
  std::unique_ptr<GitFixture> repo;
  std::string base;
};

TEST_F(GateShapeTiming, AHeadSlowerOnlyOnAReportOnlyShapePasses) {
  std::string head = slower_odd_head(kReportEdges);
  auto out = gate(head);
  EXPECT_EQ(out.exit_code, 0) << out.out << out.err;
  nlohmann::json odd = shape("odd");
  EXPECT_EQ(odd["verdict"], "slower") << odd.dump(1);
  EXPECT_GT(odd["interval"]["estimate"].get<double>(), 2.0) << odd.dump(1);
  EXPECT_FALSE(odd["fails"].get<bool>());
  EXPECT_FALSE(odd["counts"].get<bool>());
  EXPECT_EQ(odd["timing"], "report");
  EXPECT_EQ(odd["reason"], "report only: edge shape");
  EXPECT_GT(odd["launch_floor_s"].get<double>(), 0) << "the empty launch is timed beside it";
  // The untimed shape is checked, not timed.
  nlohmann::json one = shape("one");
  EXPECT_EQ(one["verdict"], "checked") << one.dump(1);
  EXPECT_EQ(one["rounds"], 0);
  EXPECT_TRUE(one["check"]["passed"].get<bool>());
  EXPECT_FALSE(one["fails"].get<bool>());
  for (const char* name : {"small", "large"}) EXPECT_FALSE(shape(name)["fails"].get<bool>());
  std::string md = read(dir / "gate.md");
  EXPECT_NE(md.find("slower (report only: edge shape)"), std::string::npos) << md;
  EXPECT_NE(md.find("checked, not timed (timing \"off\")"), std::string::npos) << md;
  EXPECT_NE(md.find("## kgate: passed"), std::string::npos) << md;
}

TEST_F(GateShapeTiming, TheSameHeadFailsWhereTheShapeGates) {
  std::string head = slower_odd_head(kGateEdges);
  auto out = gate(head);
  EXPECT_EQ(out.exit_code, 1) << out.out << out.err;
  nlohmann::json odd = shape("odd");
  EXPECT_EQ(odd["verdict"], "slower") << odd.dump(1);
  EXPECT_TRUE(odd["fails"].get<bool>());
  EXPECT_EQ(odd["timing"], "gate");
  EXPECT_EQ(shape("one")["verdict"], "checked");  // its own timing holds without a phase default
}

// Which oracle judged: with --oracle base, shapes above host_reference_max_elements are judged by
// the base's outputs once the base passed on a small shape.
TEST_F(GateShapeTiming, TheBaseJudgesLargeShapesOnlyAfterPassingOnSmallOnes) {
  const std::string gate_section =
      R"({"max_regression": 0.10, "min_improvement": 0.10, "budget_s": 0.1,
          "host_reference_max_elements": 20000})";
  repo = std::make_unique<GitFixture>(dir.path() / "repo");
  repo->write("kgate.json", manifest(gate_section));
  repo->write("src/scale.cpp", kScale);
  repo->write("ref/scale_ref.cpp", kReference);
  base = repo->commit("kernels");
  repo->write("src/scale.cpp", std::string("// comment\n") + kScale);
  std::string same = repo->commit("comment");
  auto out = gate(same, {"--oracle", "base"});
  EXPECT_EQ(out.exit_code, 0) << out.out << out.err;
  EXPECT_EQ(shape("small")["oracle"], "host reference");
  EXPECT_EQ(shape("large")["oracle"], "base");
  EXPECT_TRUE(shape("small")["base_check"]["passed"].get<bool>());
  std::string md = read(dir / "gate.md");
  EXPECT_NE(md.find("What judged correctness"), std::string::npos) << md;
  EXPECT_NE(md.find("base (large)"), std::string::npos) << md;

  // A head wrong only where the base judges is caught by the base.
  repo->write("src/scale.cpp", std::string(kScale).replace(std::string(kScale).find("* 2.0f;"), 7,
                                                           "* (n > 20000 ? 2.01f : 2.0f);"));
  std::string wrong_large = repo->commit("wrong on large shapes");
  out = gate(wrong_large, {"--oracle", "base"});
  EXPECT_EQ(out.exit_code, 1) << out.out << out.err;
  EXPECT_EQ(shape("large")["verdict"], "incorrect");
  EXPECT_EQ(shape("large")["oracle"], "base");
  EXPECT_TRUE(shape("small")["check"]["passed"].get<bool>());  // right where the reference judges

  // Without --oracle, the host reference judges every shape.
  out = gate(same);
  EXPECT_EQ(out.exit_code, 0) << out.out << out.err;
  EXPECT_EQ(shape("large")["oracle"], "host reference");
}

TEST_F(GateShapeTiming, AWrongBaseIsNoticedAndDoesNotJudge) {
  const std::string gate_section =
      R"({"max_regression": 0.10, "min_improvement": 0.10, "budget_s": 0.1,
          "host_reference_max_elements": 20000, "oracle": "base"})";
  repo = std::make_unique<GitFixture>(dir.path() / "repo");
  repo->write("kgate.json", manifest(gate_section));
  // The base is off by 1% everywhere; head fixes it.
  std::string wrong = std::string(kScale);
  wrong.replace(wrong.find("* 2.0f;"), 7, "* 2.02f;");
  repo->write("src/scale.cpp", wrong);
  repo->write("ref/scale_ref.cpp", kReference);
  base = repo->commit("a wrong base");
  repo->write("src/scale.cpp", kScale);
  std::string fixed = repo->commit("fix");
  auto out = gate(fixed);
  EXPECT_EQ(out.exit_code, 0) << out.out << out.err;
  EXPECT_FALSE(shape("small")["base_check"]["passed"].get<bool>());
  const std::string oracle = shape("large")["oracle"];
  EXPECT_EQ(oracle.rfind("host reference (the base failed its own check", 0), 0u) << oracle;
  EXPECT_EQ(shape("large")["verdict"] == "incorrect", false);
}

}  // namespace
}  // namespace kgate::testing
