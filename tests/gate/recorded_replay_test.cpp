// The replay of the gate on recorded A/A rounds (bench_gate_recorded's
// statistics part, which needs no GPU): chunks are disjoint and bounded by
// the budget, planting scales head only, the simple rules see the same
// rounds, and on synthetic GPU-like recordings the rates land where the
// gate's statistics say they must.
#include <gtest/gtest.h>

#include "gate/noise_model.h"
#include "gate/recorded_replay.h"
#include "support/test_support.h"

namespace kgate {
namespace {

RecordedRounds simulated(const NoiseModel& model, size_t rounds, uint64_t seed,
                         double seconds_per_round) {
  RecordedRounds r;
  r.kernel = "k";
  r.shape = "s";
  r.phase = "decode";
  r.device = "simulated";
  TimingSimulator sim(model, 1.0, seed);
  for (size_t i = 0; i < rounds; ++i) {
    auto [h, b] = sim.next_round();
    r.head.push_back(h);
    r.base.push_back(b);
  }
  r.loop_seconds = seconds_per_round * rounds;
  r.check_seconds = 0.01;
  return r;
}

// A recording without noise: every sample the same.
RecordedRounds constant(size_t rounds, double t) {
  RecordedRounds r;
  r.head.assign(rounds, t);
  r.base.assign(rounds, t);
  r.loop_seconds = 1e-4 * rounds;
  return r;
}

TEST(RecordedReplay, NoiselessRoundsGiveExactVerdictsAndRules) {
  RecordedRounds r = constant(20 + 100 * 20, 30e-6);
  ReplayOptions o;
  ReplayResult result = replay_gates(r, o, {0, 0.02, 0.05, 0.10});
  ASSERT_EQ(result.rates.size(), 4u);
  const ReplayRates& aa = result.rates[0];
  EXPECT_EQ(aa.gates, 100);
  EXPECT_EQ(aa.kgate_flags, 0);
  EXPECT_EQ(aa.kgate_same, 100);  // a zero-width interval at 1 decides at the first look
  EXPECT_EQ(aa.mean_rounds, 20);
  EXPECT_EQ(aa.band_flags, 0);
  EXPECT_EQ(aa.fixed_flags, 0);
  const ReplayRates& two = result.rates[1];
  EXPECT_EQ(two.kgate_flags, two.gates);  // every +2% gate says slower
  EXPECT_EQ(two.kgate_fails, 0);          // but within the 3% policy
  EXPECT_EQ(two.band_flags, two.gates);   // above a zero-width band
  EXPECT_EQ(two.fixed_flags, 0);          // under the fixed 5%
  const ReplayRates& ten = result.rates[3];
  EXPECT_EQ(ten.kgate_fails, ten.gates);
  EXPECT_EQ(ten.fixed_flags, ten.gates);
  // 20 rounds at 100 us plus no check.
  EXPECT_NEAR(aa.mean_gate_seconds, 20 * 1e-4, 1e-12);
}

TEST(RecordedReplay, ChunksAreDisjointAndStopWhenRoundsRunOut) {
  // Room for the baseline and exactly 7 noiseless gates of 20 rounds.
  RecordedRounds r = constant(20 + 7 * 20 + 19, 10e-6);
  ReplayOptions o;
  ReplayResult result = replay_gates(r, o, {0});
  ASSERT_EQ(result.rates.size(), 1u);
  EXPECT_EQ(result.rates[0].gates, 7);
  EXPECT_EQ(result.rates[0].mean_rounds * result.rates[0].gates, 140);
}

TEST(RecordedReplay, TheBudgetCapsRoundsPerGate) {
  // Noise too large to decide within 50 rounds: every gate runs to the budget.
  NoiseModel noisy{NoiseShape::kLognormal, 5e-6, 0.30};
  RecordedRounds r = simulated(noisy, 20000, 3, 1e-3);
  ReplayOptions o;
  o.policy.budget_s = 0.05;  // 50 rounds at 1 ms each
  o.gates = 50;
  ReplayResult result = replay_gates(r, o, {0});
  EXPECT_EQ(result.budget_rounds, 50);
  ASSERT_EQ(result.rates.size(), 1u);
  EXPECT_EQ(result.rates[0].gates, 50);
  EXPECT_LE(result.rates[0].max_rounds, 50);
  EXPECT_GE(result.rates[0].kgate_inconclusive, 40);
  EXPECT_NEAR(result.rates[0].max_gate_seconds, 50 * 1e-3 + 0.01, 1e-9);
}

TEST(RecordedReplay, GpuLikeRecordingKeepsFalseAlarmsLowAndCatchesSlowdowns) {
  // A 20 us kernel with GPU-like noise (drift, clock states, outliers).
  NoiseModel model{NoiseShape::kGpuLike, 20e-6, 0.01};
  RecordedRounds r = simulated(model, 400000, 11, 60e-6);
  ReplayOptions o;
  o.gates = 300;
  ReplayResult result = replay_gates(r, o, {0, 0.02, 0.05});
  ASSERT_EQ(result.rates.size(), 3u);
  const ReplayRates& aa = result.rates[0];
  EXPECT_EQ(aa.gates, 300);
  // Nominal 1% (two-sided 99% interval); 300 gates: allow sampling error.
  EXPECT_LE(aa.kgate_flags, 9) << aa.kgate_flags << " false alarms in 300";
  EXPECT_GE(result.rates[1].rate(result.rates[1].kgate_flags), 0.9);
  EXPECT_GE(result.rates[2].rate(result.rates[2].kgate_flags), 0.99);
  // The fixed 5% rule on single runs: worse on A/A than kgate here.
  EXPECT_GT(aa.fixed_flags + aa.band_flags, aa.kgate_flags);
  TargetCheck t = check_targets(r, result);
  EXPECT_EQ(t.detect_planted, 0.02);
}

TEST(RecordedReplay, MarkdownShowsRatesTargetsAndATradeOffWhenMissed) {
  NoiseModel noisy{NoiseShape::kLognormal, 4e-6, 0.30};
  RecordedRounds r = simulated(noisy, 8000, 5, 1e-4);
  ReplayOptions o;
  o.policy.budget_s = 0.01;  // far too short for 30% noise: the 5% target is missed
  ReplayResult result = replay_gates(r, o, {0, 0.02, 0.05, 0.10});
  std::string md = replay_markdown(r, o, result);
  EXPECT_NE(md.find("`k / s`"), std::string::npos) << md;
  EXPECT_NE(md.find("| A/A |"), std::string::npos) << md;
  EXPECT_NE(md.find("| +5% |"), std::string::npos) << md;
  EXPECT_NE(md.find("+5% caught ≥ 95% (< 20 µs kernel): **missed**"), std::string::npos) << md;
  EXPECT_NE(md.find("Trade-off"), std::string::npos) << md;

  RecordedRounds quiet = constant(20 + 100 * 20, 30e-6);
  ReplayOptions q;
  std::string clean = replay_markdown(quiet, q, replay_gates(quiet, q, {0, 0.02, 0.05, 0.10}));
  EXPECT_EQ(clean.find("Trade-off"), std::string::npos) << clean;
  EXPECT_EQ(clean.find("missed"), std::string::npos) << clean;
}

TEST(RecordedReplay, RecordingsRoundTripThroughFiles) {
  testing::TempDir dir;
  NoiseModel model{NoiseShape::kGpuLike, 8e-6, 0.02};
  RecordedRounds r = simulated(model, 500, 9, 50e-6);
  ASSERT_TRUE(save_rounds(dir / "r.json", r).ok());
  auto back = load_rounds(dir / "r.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->head, r.head);
  EXPECT_EQ(back->base, r.base);
  EXPECT_EQ(back->kernel, "k");
  EXPECT_DOUBLE_EQ(back->seconds_per_round(), r.seconds_per_round());

  testing::write(dir / "bad.json", R"({"head": [1e-6, 2e-6], "base": [1e-6]})");
  auto bad = load_rounds(dir / "bad.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("differ in length"), std::string::npos);
  testing::write(dir / "text.json", "not json");
  EXPECT_FALSE(load_rounds(dir / "text.json").ok());
}

}  // namespace
}  // namespace kgate
