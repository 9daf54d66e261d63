// The built-in tuner's search: the order of its moves by bottleneck class
// (widest access first, then reuse, then work in flight; register-limited
// steps back; launch-bound grows blocks), coordinated pairs where single
// steps stall, momentum after a kept change, determinism for a seed, and a
// STOP and reflections that name the bandwidth the best version reaches.
// The episodes with real compiles and runs are in episode_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <set>

#include "agent/agent_answer.h"
#include "agent/agent_request.h"
#include "agent/tuner_provider.h"
#include "core/hash.h"

namespace kgate {
namespace {

using json = nlohmann::json;

const json kRowKernel = {
    {"BLOCK", {256, 128, 512, 1024}}, {"UNROLL", {1, 2, 4, 8}}, {"VEC", {1, 2, 4, 8}}};
const json kGemv = {{"BLOCK", {256, 128, 512, 1024}},
                    {"UNROLL", {1, 2, 4, 8}},
                    {"VEC", {1, 2, 4, 8}},
                    {"ROWS", {1, 2, 4, 8, 16}},
                    {"BATCH_TILE", {1, 2, 4, 8}}};

struct Tried {
  json tunables;
  bool accepted;
};

json context(const json& declared, const json& best, const std::string& bottleneck,
             const std::vector<Tried>& tried = {}, json flags = json::array()) {
  json t = json::array();
  int i = 0;
  for (const Tried& x : tried)
    t.push_back({{"iteration", ++i},
                 {"tunables", x.tunables},
                 {"flags", json::array()},
                 {"outcome", x.accepted ? "improved" : "no-gain"},
                 {"speedup", 1.0},
                 {"accepted", x.accepted}});
  return {{"kernel", "k"},
          {"backend", "cuda"},
          {"tunables", declared},
          {"best", {{"tunables", best}, {"flags", flags}, {"source", "__global__ void k() {}\n"}}},
          {"profile",
           {{"bottleneck", bottleneck},
            {"timing",
             {{{"shape", "prefill-8k"}, {"best_s", 40e-6}, {"bytes_moved", 134217728}},
              {{"shape", "decode-b1"}, {"best_s", 4e-6}, {"bytes_moved", 16384}}}}}},
          {"tried", t},
          {"lessons", json::array()}};
}

std::string ask(const json& ctx, uint64_t seed = 1, AgentTask task = AgentTask::kPropose) {
  auto tuner = make_tuner_provider(seed);
  AgentRequest r;
  r.task = task;
  r.context = ctx;
  auto answer = tuner->ask(r);
  EXPECT_TRUE(answer.ok());
  return answer.ok() ? *answer : "";
}

// The tunables the tuner proposes, or empty when it stops.
Variables proposal(const json& ctx, uint64_t seed = 1) {
  std::string text = ask(ctx, seed);
  if (text.rfind("STOP:", 0) == 0) return {};
  return parse_agent_answer(text).tunables;
}

TEST(TunerSearch, MemoryBoundJumpsToTheWidestAccessFirst) {
  json best = {{"BLOCK", 256}, {"UNROLL", 1}, {"VEC", 1}};
  Variables p = proposal(context(kRowKernel, best, "memory-bound"));
  EXPECT_EQ(p, (Variables{{"BLOCK", 256}, {"UNROLL", 1}, {"VEC", 8}}));
  std::string text = ask(context(kRowKernel, best, "memory-bound"));
  EXPECT_NE(text.find("VEC 1 -> 8"), std::string::npos) << text;
}

TEST(TunerSearch, LatencyBoundOnNarrowLoadsWidensThemFirst) {
  json best = {{"BLOCK", 256}, {"UNROLL", 1}, {"VEC", 1}};
  json ctx = context(kRowKernel, best, "latency-bound");
  // Full 4-sector requests: more independent work per thread first.
  ctx["profile"]["data"] = {{"bottleneck", "latency_bound"},
                            {"derived", {{"ld_sectors_per_request", 4.0}}}};
  EXPECT_EQ(proposal(ctx), (Variables{{"BLOCK", 256}, {"UNROLL", 2}, {"VEC", 1}}));
  // 2 sectors per load request (2-byte loads, as the H200 profiled the naive
  // example kernels): the widest access first.
  ctx["profile"]["data"]["derived"]["ld_sectors_per_request"] = 2.0;
  EXPECT_EQ(proposal(ctx), (Variables{{"BLOCK", 256}, {"UNROLL", 1}, {"VEC", 8}}));
}

TEST(TunerSearch, ReuseComesAfterWidthThenWorkInFlight) {
  json best = {{"BLOCK", 256}, {"UNROLL", 1}, {"VEC", 8}, {"ROWS", 1}, {"BATCH_TILE", 1}};
  json vec8 = best;
  // VEC was the last kept change and cannot grow further: reuse to its largest is next.
  Variables p = proposal(context(kGemv, best, "memory-bound", {{vec8, true}}));
  EXPECT_EQ(p.at("BATCH_TILE"), 8);
  EXPECT_EQ(p.at("VEC"), 8);
  // Once that was tried (and not kept), more work in flight: UNROLL one step.
  json tile8 = best;
  tile8["BATCH_TILE"] = 8;
  p = proposal(context(kGemv, best, "memory-bound", {{vec8, true}, {tile8, false}}));
  EXPECT_EQ(p.at("UNROLL"), 2);
  EXPECT_EQ(p.at("BATCH_TILE"), 1);
}

TEST(TunerSearch, AMemoryBoundRowIsSplitOverAClusterAfterTheWidestAccess) {
  const json split_row = {{"BLOCK", {512, 256, 1024}},
                          {"UNROLL", {1, 2, 4, 8}},
                          {"VEC", {1, 2, 4, 8}},
                          {"SPLIT", {1, 2, 4, 8}}};
  json best = {{"BLOCK", 512}, {"UNROLL", 1}, {"VEC", 8}, {"SPLIT", 1}};
  Variables p = proposal(context(split_row, best, "memory-bound", {{best, true}}));
  EXPECT_EQ(p, (Variables{{"BLOCK", 512}, {"UNROLL", 1}, {"VEC", 8}, {"SPLIT", 8}}));
  EXPECT_NE(ask(context(split_row, best, "memory-bound", {{best, true}})).find("cluster"),
            std::string::npos);
  // Register-limited: no split first; the tuner steps back instead.
  p = proposal(context(split_row, best, "register-limited", {{best, true}}));
  EXPECT_EQ(p.at("SPLIT"), 1);
}

TEST(TunerSearch, RegisterLimitedStepsBack) {
  json best = {{"BLOCK", 256}, {"UNROLL", 8}, {"VEC", 8}};
  Variables p = proposal(context(kRowKernel, best, "register-limited"));
  EXPECT_EQ(p.at("UNROLL"), 4) << "less work per thread first";
  EXPECT_EQ(p.at("VEC"), 8);
}

TEST(TunerSearch, LaunchBoundGrowsBlocksOrRowsPerBlock) {
  json best = {{"BLOCK", 256}, {"UNROLL", 1}, {"VEC", 8}, {"ROWS", 1}, {"BATCH_TILE", 1}};
  Variables p = proposal(context(kGemv, best, "launch-bound"));
  EXPECT_TRUE(p.at("BLOCK") == 512 || p.at("ROWS") == 2)
      << "BLOCK " << p.at("BLOCK") << " ROWS " << p.at("ROWS");
}

TEST(TunerSearch, APairMoveFollowsWhenSingleStepsAreTried) {
  json best = {{"BLOCK", 256}, {"UNROLL", 1}, {"VEC", 8}};
  json unroll2 = {{"BLOCK", 256}, {"UNROLL", 2}, {"VEC", 8}};
  json vec8 = best;
  // VEC 1 -> 8 was kept; UNROLL 2 alone brought nothing. Next: UNROLL up with BLOCK down.
  Variables p =
      proposal(context(kRowKernel, best, "memory-bound", {{vec8, true}, {unroll2, false}}));
  EXPECT_EQ(p, (Variables{{"BLOCK", 128}, {"UNROLL", 2}, {"VEC", 8}}));
}

// A file without a final newline (SGEMM_CUDA's kernels) comes back from the
// answer's code block with one. The candidate's recorded source hash is of
// that text: the tuner must know its own move as tried, not propose it again
// every iteration (as it did on the H200 before).
TEST(TunerSearch, AMoveOnASourceWithoutAFinalNewlineIsNotProposedTwice) {
  json ctx = context(kRowKernel, {{"BLOCK", 256}, {"UNROLL", 1}, {"VEC", 1}}, "memory-bound");
  ctx["best"]["source"] = "__global__ void k() {}";  // no final newline
  std::set<Variables> proposed;
  for (int i = 0; i < 4; ++i) {
    AgentAnswer answer = parse_agent_answer(ask(ctx));
    ASSERT_TRUE(answer.code) << "iteration " << i;
    EXPECT_TRUE(proposed.insert(answer.tunables).second) << "proposed again at iteration " << i + 1;
    json t = json::object();
    for (const auto& [n, v] : answer.tunables) t[n] = v;
    ctx["tried"].push_back({{"iteration", i + 1},
                            {"tunables", t},
                            {"flags", json::array()},
                            {"source_sha256", sha256_hex(*answer.code).substr(0, 16)},
                            {"outcome", "no-gain"},
                            {"speedup", 1.0},
                            {"accepted", false}});
  }
}

TEST(TunerSearch, MomentumContinuesTheLastKeptChange) {
  json best = {{"BLOCK", 256}, {"UNROLL", 2}, {"VEC", 1}};
  // UNROLL 1 -> 2 was kept: UNROLL 4 comes before the VEC jump.
  Variables p = proposal(context(kRowKernel, best, "memory-bound", {{best, true}}));
  EXPECT_EQ(p, (Variables{{"BLOCK", 256}, {"UNROLL", 4}, {"VEC", 1}}));
}

TEST(TunerSearch, TheSameSeedGivesTheSameAnswer) {
  json best = {{"BLOCK", 256}, {"UNROLL", 2}, {"VEC", 8}};
  json ctx = context(kRowKernel, best, "unknown", {{best, true}});
  EXPECT_EQ(ask(ctx, 42), ask(ctx, 42));
}

// A landscape where one-at-a-time hill-climbing stalls: the best needs
// UNROLL up and BLOCK down together (the chunk BLOCK * UNROLL * VEC must stay
// at the row length 4096). The tuner, fed the outcomes as the episode feeds
// them, reaches the optimum within 20 iterations, the same way for a seed.
std::vector<Variables> climb(uint64_t seed, double* best_cost, int* iterations) {
  auto cost = [](const Variables& v) {
    double vec = v.at("VEC"), unroll = v.at("UNROLL"), block = v.at("BLOCK");
    return 100 / vec + (vec * unroll * block == 4096 ? 0 : 20) + 10 / unroll + block / 256;
  };
  Variables best = {{"BLOCK", 256}, {"UNROLL", 1}, {"VEC", 1}};
  *best_cost = cost(best);
  std::vector<Tried> tried;
  std::vector<Variables> path;
  for (*iterations = 0; *iterations < 20; ++*iterations) {
    json best_j = json::object();
    for (const auto& [k, v] : best) best_j[k] = v;
    Variables p = proposal(context(kRowKernel, best_j, "memory-bound", tried), seed);
    if (p.empty()) break;
    path.push_back(p);
    double c = cost(p);
    bool kept = c <= 0.97 * *best_cost;
    json pj = json::object();
    for (const auto& [k, v] : p) pj[k] = v;
    tried.push_back({pj, kept});
    if (kept) best = p, *best_cost = c;
  }
  path.push_back(best);
  return path;
}

TEST(TunerSearch, ReachesTheOptimumThatNeedsAPairMoveWithinTwentyIterations) {
  double cost = 0;
  int iterations = 0;
  std::vector<Variables> path = climb(7, &cost, &iterations);
  EXPECT_EQ(path.back(), (Variables{{"BLOCK", 128}, {"UNROLL", 4}, {"VEC", 8}}));
  EXPECT_DOUBLE_EQ(cost, 15.5);
  EXPECT_LE(iterations, 20);
  // The optimum was found early, not by exhausting the space.
  size_t found = std::find(path.begin(), path.end(), path.back()) - path.begin();
  EXPECT_LE(found, 8u);
  double again_cost = 0;
  int again_iterations = 0;
  EXPECT_EQ(climb(7, &again_cost, &again_iterations), path);
}

TEST(TunerSearch, StopAndReflectionNameTheBandwidthOfTheBest) {
  json declared = {{"VEC", {8}}};
  json ctx = context(declared, {{"VEC", 8}}, "memory-bound", {},
                     json::array({"--extra-device-vectorization"}));
  std::string text = ask(ctx);
  ASSERT_EQ(text.rfind("STOP:", 0), 0u) << text;
  // 134217728 bytes in 40 us = 3355 GB/s; the highest bandwidth comes first.
  EXPECT_NE(text.find("prefill-8k 3355 GB/s (40.00 us)"), std::string::npos) << text;
  EXPECT_LT(text.find("prefill-8k"), text.find("decode-b1")) << text;

  json reflect = {{"outcome", "no-gain"},
                  {"bottleneck", "memory-bound"},
                  {"plan", {{"change", "UNROLL 2 -> 4: more work"}}},
                  {"gate", {{"geomean_ratio", 0.99}}},
                  {"best_timing", ctx["profile"]["timing"]}};
  std::string why = ask(reflect, 1, AgentTask::kReflect);
  EXPECT_NE(why.find("3355 GB/s"), std::string::npos) << why;
}

}  // namespace
}  // namespace kgate
