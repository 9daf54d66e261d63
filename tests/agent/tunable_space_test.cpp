// Declared roles and constraints in the built-in tuner (agent/tunable_space.h):
// a role overrides what the name says, no proposal ever breaks a constraint,
// and where every single step does, the tuner moves 2-3 tunables at once.
#include "agent/tunable_space.h"

#include <gtest/gtest.h>

#include "agent/agent_answer.h"
#include "agent/agent_request.h"
#include "agent/tuner_provider.h"

namespace kgate {
namespace {

using json = nlohmann::json;

// A 2D-tiled GEMM's tunables in a library's own names; BK up needs TN down.
const json kGemmTunables = {
    {"BM", {64, 128}}, {"BN", {64}}, {"BK", {8, 16}}, {"TM", {8}}, {"TN", {8, 4}}};
const json kGemmRoles = {{"BM", "tile_rows"},
                         {"BN", "tile_cols"},
                         {"BK", "tile_k"},
                         {"TM", "thread_tile_rows"},
                         {"TN", "thread_tile_cols"}};
const json kGemmConstraints = {"BK * TN == 64", "BM / TM == 8", "BN % TN == 0"};

json context(const json& tunables, const json& roles, const json& constraints, const json& best,
             const json& tried = json::array()) {
  return {{"kernel", "k"},
          {"backend", "cuda"},
          {"tunables", tunables},
          {"tunable_roles", roles},
          {"constraints", constraints},
          {"best", {{"tunables", best}, {"flags", json::array()}, {"source", "// k\n"}}},
          {"profile", {{"bottleneck", "memory-bound"}}},
          {"tried", tried},
          {"lessons", json::array()}};
}

// The tuner's answer; nullopt when it says STOP.
std::optional<AgentAnswer> answer(const json& ctx) {
  auto tuner = make_tuner_provider(1);
  AgentRequest r;
  r.task = AgentTask::kPropose;
  r.context = ctx;
  auto text = tuner->ask(r);
  EXPECT_TRUE(text.ok());
  if (!text.ok() || text->rfind("STOP:", 0) == 0) return std::nullopt;
  return parse_agent_answer(*text);
}

// The tuner's proposal: its tunables, or empty when it says STOP.
Variables propose(const json& ctx) {
  auto a = answer(ctx);
  return a ? a->tunables : Variables{};
}

TEST(TunableSpace, ValidStepsAndCoordinatedSteps) {
  TunableSpace space = TunableSpace::from_context(
      context(kGemmTunables, kGemmRoles, kGemmConstraints, json::object()));
  TunableSettings defaults = space.defaults();
  EXPECT_EQ(defaults.at("BK"), 8);
  EXPECT_TRUE(space.valid(defaults));
  EXPECT_EQ(space.role("BK"), "tile_k");
  EXPECT_EQ(space.role("XX"), "");
  // Every single step breaks a constraint: BK 16 (BK * TN = 128), TN 4 (32), BM 128 (16).
  EXPECT_TRUE(space.valid_single_steps(defaults).empty());
  auto together = space.coordinated_steps(defaults);
  ASSERT_EQ(together.size(), 1u);
  TunableSettings expected = defaults;
  expected["BK"] = 16;
  expected["TN"] = 4;
  EXPECT_EQ(together[0], expected);
  // A constraint that cannot be evaluated (division by zero) rejects the setting.
  TunableSpace zero = TunableSpace::from_context(
      context({{"A", {1, 0}}}, json::object(), {"8 % A == 0"}, json::object()));
  EXPECT_TRUE(zero.valid({{"A", 1}}));
  EXPECT_FALSE(zero.valid({{"A", 0}}));
}

TEST(TunableSpace, ADeclaredRoleOverridesTheName) {
  EXPECT_EQ(knob_of("W", ""), Knob::kOther);
  EXPECT_EQ(knob_of("W", "vector_width"), Knob::kWidth);
  EXPECT_EQ(knob_of("BM", "tile_rows"), Knob::kReuse);
  EXPECT_EQ(knob_of("TN", "thread_tile_cols"), Knob::kWork);
  EXPECT_EQ(knob_of("VEC", ""), Knob::kWidth);       // the name heuristic remains
  EXPECT_EQ(knob_of("VEC", "other"), Knob::kOther);  // unless a role says otherwise
  // Memory-bound: the widest access first, found by role where the name says nothing.
  const json tunables = {{"W", {1, 2, 4, 8}}, {"B", {256, 128}}};
  Variables p =
      propose(context(tunables, {{"W", "vector_width"}}, json::array(), {{"W", 1}, {"B", 256}}));
  EXPECT_EQ(p, (Variables{{"B", 256}, {"W", 8}}));
  Variables unnamed =
      propose(context(tunables, json::object(), json::array(), {{"W", 1}, {"B", 256}}));
  EXPECT_NE(unnamed.count("W") ? unnamed.at("W") : 0, 8);
}

TEST(TunerConstraints, EverySingleStepInvalidGivesACoordinatedMove) {
  json best = {{"BM", 64}, {"BN", 64}, {"BK", 8}, {"TM", 8}, {"TN", 8}};
  Variables p = propose(context(kGemmTunables, kGemmRoles, kGemmConstraints, best));
  EXPECT_EQ(p, (Variables{{"BM", 64}, {"BN", 64}, {"BK", 16}, {"TM", 8}, {"TN", 4}}));
}

TEST(TunerConstraints, NoProposalEverBreaksAConstraint) {
  // A wider space: every proposal of an episode that keeps nothing meets the constraints.
  const json tunables = {{"BM", {64, 128, 32}},
                         {"BN", {64, 128}},
                         {"BK", {8, 16, 32}},
                         {"TM", {8, 4, 16}},
                         {"TN", {8, 4, 2}}};
  const json constraints = {"BM % TM == 0", "BN % TN == 0", "(BM / TM) * (BN / TN) <= 256",
                            "BK * TN <= 64", "BM * BK <= 2048"};
  TunableSpace space =
      TunableSpace::from_context(context(tunables, kGemmRoles, constraints, json::object()));
  json best = {{"BM", 64}, {"BN", 64}, {"BK", 8}, {"TM", 8}, {"TN", 8}};
  json tried = json::array();
  int proposals = 0;
  for (int i = 1; i <= 60; ++i) {
    auto a = answer(context(tunables, kGemmRoles, constraints, best, tried));
    if (!a) break;
    ++proposals;
    const Variables& p = a->tunables;
    TunableSettings s(p.begin(), p.end());
    EXPECT_TRUE(space.valid(s)) << "proposal " << i << " breaks a constraint";
    json t = json::object();
    for (const auto& [k, v] : p) t[k] = v;
    tried.push_back({{"iteration", i},
                     {"tunables", t},
                     {"flags", a->flags},
                     {"outcome", "no-gain"},
                     {"accepted", false}});
  }
  EXPECT_GT(proposals, 3);
}

}  // namespace
}  // namespace kgate
