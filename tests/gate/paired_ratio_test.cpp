// The gate's statistics on synthetic samples with known shifts and noise
// shapes: coverage on equal distributions, power on known shifts.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "gate/noise_model.h"
#include "gate/paired_ratio.h"
#include "gate/verdict.h"

namespace kgate {
namespace {

const NoiseShape kShapes[] = {NoiseShape::kNormal, NoiseShape::kLognormal, NoiseShape::kBimodal,
                              NoiseShape::kOutliers, NoiseShape::kGpuLike};

TEST(Quantile, InterpolatesLinearly) {
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(quantile({5}, 0.9), 5);
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4, 5}, 0.1), 1.4);
  EXPECT_TRUE(std::isnan(quantile({}, 0.5)));
}

TEST(NormalQuantile, MatchesKnownValues) {
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-9);
  EXPECT_NEAR(normal_quantile(0.995), 2.575829303548901, 1e-9);
  EXPECT_NEAR(normal_quantile(0.5), 0, 1e-12);
  EXPECT_NEAR(normal_quantile(1e-6), -4.753424308822899, 1e-8);
}

TEST(SignedRank, ExactRanksMatchTables) {
  // Published two-sided critical values of the signed-rank test (T <= t):
  // n=10, alpha=0.05: t=8; n=20, alpha=0.05: t=52; n=20, alpha=0.01: t=37.
  EXPECT_EQ(signed_rank_interval_rank(10, 0.95), 9);
  EXPECT_EQ(signed_rank_interval_rank(20, 0.95), 53);
  EXPECT_EQ(signed_rank_interval_rank(20, 0.99), 38);
  EXPECT_EQ(signed_rank_interval_rank(5, 0.99), 0);  // 2^-5 > 0.005: no interval
  // Exact and normal agree closely at the switch-over.
  int64_t exact = signed_rank_interval_rank(60, 0.99);
  double sd = std::sqrt(60 * 61.0 * 121 / 24), z = normal_quantile(0.995);
  EXPECT_NEAR(static_cast<double>(exact), 60 * 61 / 4.0 + 0.5 - z * sd, 3);
}

TEST(WalshAverages, KthMatchesBruteForce) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> z;
  for (int n : {1, 2, 7, 31}) {
    std::vector<double> d(n);
    for (double& v : d) v = z(rng);
    d[n / 2] = d[0];  // ties
    std::sort(d.begin(), d.end());
    std::vector<double> walsh;
    for (int i = 0; i < n; ++i)
      for (int j = i; j < n; ++j) walsh.push_back((d[i] + d[j]) / 2);
    std::sort(walsh.begin(), walsh.end());
    for (size_t k = 1; k <= walsh.size(); k += std::max<size_t>(1, walsh.size() / 13))
      EXPECT_NEAR(kth_walsh_average(d, static_cast<int64_t>(k)), walsh[k - 1], 1e-12)
          << n << " " << k;
  }
}

TEST(PairedRatio, EstimatesAKnownRatio) {
  TimingSimulator sim({NoiseShape::kLognormal, 20e-6, 0.03}, 1.10, 11);
  std::vector<double> h, b;
  for (int i = 0; i < 400; ++i) {
    auto [x, y] = sim.next_round();
    h.push_back(x);
    b.push_back(y);
  }
  RatioInterval r = paired_ratio_interval(h, b, 0.99);
  EXPECT_EQ(r.pairs, 400);
  EXPECT_NEAR(r.estimate, 1.10, 0.01);
  EXPECT_LT(r.low, r.estimate);
  EXPECT_GT(r.high, r.estimate);
  EXPECT_GT(r.low, 1.05);
  EXPECT_NEAR(r.median_ratio, 1.10, 0.02);
}

TEST(PairedRatio, DropsBrokenSamplesAndSurvivesJson) {
  RatioInterval r = paired_ratio_interval({1, 2, -1, NAN}, {1, 2, 3, 4}, 0.9);
  EXPECT_EQ(r.pairs, 2);
  RatioInterval back = RatioInterval::from_json(nlohmann::json::parse(r.to_json().dump()));
  EXPECT_EQ(back.pairs, 2);
  EXPECT_TRUE(std::isinf(back.high));  // two pairs give no 90% interval
  EXPECT_DOUBLE_EQ(back.estimate, r.estimate);
}

// Fixed n: the interval excludes 1 on equal distributions at most as often
// as the nominal level allows, for every noise shape.
TEST(PairedRatio, CoverageOnEqualDistributions) {
  const int trials = 1000;
  const double confidence = 0.95, alpha = 1 - confidence;
  for (NoiseShape shape : kShapes) {
    int excluded = 0;
    for (int t = 0; t < trials; ++t) {
      TimingSimulator sim({shape, 20e-6, 0.03}, 1.0, 1000 + t);
      std::vector<double> h, b;
      for (int i = 0; i < 40; ++i) {
        auto [x, y] = sim.next_round();
        h.push_back(x);
        b.push_back(y);
      }
      excluded += paired_ratio_interval(h, b, confidence).excludes_one();
    }
    double rate = double(excluded) / trials;
    double slack = 2.5 * std::sqrt(alpha * (1 - alpha) / trials);
    EXPECT_LE(rate, alpha + slack) << to_string(shape);
  }
}

GatePolicy test_policy(double confidence) {
  GatePolicy p;
  p.confidence = confidence;
  p.max_regression = 0.03;
  p.min_improvement = 0.03;
  p.resolution = 0.0;  // every significant change counts: the strictest test
  return p;
}

// The adaptive tests' policy: 99% confidence and the default 1% resolution, which sets
// both what counts as a change and how finely a change is sized before sampling stops.
GatePolicy adaptive_policy() {
  GatePolicy p = test_policy(0.99);
  p.resolution = 0.01;
  return p;
}

// With adaptive stopping (interim looks), A/A false alarms stay at or under
// the nominal level: peeking must not buy false alarms.
TEST(AdaptiveGate, FalseAlarmRateOnEqualDistributionsIsAtMostNominal) {
  const int trials = 400;
  GatePolicy policy = test_policy(0.95);
  const double alpha = 1 - policy.confidence;
  for (NoiseShape shape : kShapes) {
    int alarms = 0;
    for (int t = 0; t < trials; ++t) {
      SimulatedGate g = simulate_gate({shape, 20e-6, 0.03}, 1.0, 5000 + t, policy, 20, 400);
      alarms += g.verdict == Verdict::kSlower || g.verdict == Verdict::kFaster;
    }
    double rate = double(alarms) / trials;
    double slack = 2.5 * std::sqrt(alpha * (1 - alpha) / trials);
    EXPECT_LE(rate, alpha + slack) << to_string(shape) << ": " << alarms << " of " << trials;
  }
}

// A known shift is found at the expected rate, in the right direction, with
// an estimate near the truth.
TEST(AdaptiveGate, FindsKnownShifts) {
  const int trials = 200;
  GatePolicy policy = adaptive_policy();
  for (NoiseShape shape : kShapes) {
    for (double shift : {0.05, -0.05}) {
      int found = 0;
      std::vector<double> estimates;
      for (int t = 0; t < trials; ++t) {
        SimulatedGate g = simulate_gate({shape, 20e-6, 0.03}, 1 + shift, 9000 + t, policy, 20, 600);
        found += g.verdict == (shift > 0 ? Verdict::kSlower : Verdict::kFaster);
        estimates.push_back(g.interval.estimate);
      }
      EXPECT_GE(found, trials * 0.95) << to_string(shape) << " shift " << shift;
      EXPECT_NEAR(quantile(estimates, 0.5), 1 + shift, 0.01) << to_string(shape);
    }
  }
}

TEST(AdaptiveGate, StopsEarlyOnceAChangeIsSizedAndRunsAsLongOnSmallOnes) {
  // On 2% noise a 2x change is sized to +-2% within a few dozen pairs; a 2% change, which
  // must also be told from none, takes at least as many.
  GatePolicy policy = adaptive_policy();
  SimulatedGate big =
      simulate_gate({NoiseShape::kLognormal, 20e-6, 0.02}, 2.0, 3, policy, 20, 2000);
  EXPECT_EQ(big.verdict, Verdict::kSlower);
  EXPECT_LE(big.rounds, 50);
  SimulatedGate small =
      simulate_gate({NoiseShape::kLognormal, 20e-6, 0.02}, 1.02, 3, policy, 20, 2000);
  EXPECT_EQ(small.verdict, Verdict::kSlower);
  EXPECT_GE(small.rounds, big.rounds);
  SimulatedGate same =
      simulate_gate({NoiseShape::kLognormal, 20e-6, 0.02}, 1.0, 3, policy, 20, 2000);
  EXPECT_EQ(same.verdict, Verdict::kSame);
  EXPECT_LT(same.rounds, 2000);
}

TEST(AdaptiveGate, AChangeStopsOnlyOnceItsSizeIsKnown) {
  // A 13% slowdown of a short kernel with 6% noise shows after a few dozen pairs, with an
  // interval several points wide; the report's size must be good to +-2 points.
  GatePolicy policy = adaptive_policy();
  SimulatedGate g =
      simulate_gate({NoiseShape::kLognormal, 1.5e-6, 0.06}, 1.13, 7, policy, 20, 5000);
  EXPECT_EQ(g.verdict, Verdict::kSlower);
  EXPECT_LT(g.rounds, 5000);
  EXPECT_LE(std::log(g.interval.high / g.interval.low) / 2, 0.02);
  EXPECT_NEAR(g.interval.estimate, 1.13, 0.02);
}

TEST(Verdict, PolicyBands) {
  GatePolicy p;  // max_regression 3%, min_improvement 3%, resolution 1%
  auto interval = [](double est, double lo, double hi) {
    RatioInterval r;
    r.estimate = est, r.low = lo, r.high = hi, r.pairs = 100;
    return r;
  };
  EXPECT_EQ(decide(interval(1.10, 1.08, 1.12), p, 0), Verdict::kSlower);
  EXPECT_TRUE(breaks_policy(Verdict::kSlower, interval(1.10, 1.08, 1.12), p));
  EXPECT_EQ(decide(interval(1.02, 1.01, 1.03), p, 0), Verdict::kSlower);
  EXPECT_FALSE(breaks_policy(Verdict::kSlower, interval(1.02, 1.01, 1.03), p));
  EXPECT_EQ(decide(interval(1.005, 1.001, 1.009), p, 0), Verdict::kSame);  // below resolution
  EXPECT_EQ(decide(interval(0.90, 0.88, 0.92), p, 0), Verdict::kFaster);
  EXPECT_EQ(decide(interval(0.98, 0.975, 0.99), p, 0), Verdict::kSame);  // below min_improvement
  EXPECT_EQ(decide(interval(1.0, 0.9, 1.1), p, 0), Verdict::kInconclusive);
  EXPECT_EQ(verdict_from_string("inconclusive"), Verdict::kInconclusive);
}

TEST(Verdict, ABoundTiedAtOneIsNoEvidence) {
  // Recorded on the H200 (vector_add sample-50k, identical code): 24 pairs on a
  // 32 ns timer, most of them tied, gave a lower bound of 1 + 1.6e-15.
  GatePolicy p;
  RatioInterval r;
  r.estimate = 1.0206, r.low = 1.0000000000000016, r.high = 1.049, r.pairs = 24;
  EXPECT_EQ(decide(r, p, 0), Verdict::kInconclusive);
  r.low = 1.0001;  // a real, if small, excess over 1 still counts
  EXPECT_EQ(decide(r, p, 0), Verdict::kSlower);
  r.estimate = 0.95, r.low = 0.92, r.high = 0.9999999999999984;
  EXPECT_EQ(decide(r, p, 0), Verdict::kInconclusive);
}

TEST(Verdict, ChangesBelowTheTimerFloorAreNoChange) {
  GatePolicy p = with_timer_floor(GatePolicy{}, 100e-9);
  EXPECT_DOUBLE_EQ(p.min_change_s, 100e-9);
  RatioInterval r;
  r.estimate = 1.23, r.low = 1.15, r.high = 1.31, r.pairs = 200;  // clearly 23% slower
  // On a 0.1 us shape that is 23 ns: no change. On a 10 us shape it is 2.3 us: slower, failing.
  EXPECT_EQ(decide(r, p, 0.1e-6), Verdict::kSame);
  EXPECT_TRUE(below_change_floor(r, p, 0.1e-6));
  EXPECT_EQ(change_floor_note(r, p, 0.1e-6), "+23 ns, below the 100 ns floor (min_change_s)");
  EXPECT_EQ(change_floor_note(r, p, 10e-6), "");
  EXPECT_EQ(decide(r, p, 10e-6), Verdict::kSlower);
  EXPECT_TRUE(breaks_policy(decide(r, p, 10e-6), r, p));
  // Gains below the floor are no gain either.
  r.estimate = 0.5, r.low = 0.45, r.high = 0.55;
  EXPECT_EQ(decide(r, p, 0.1e-6), Verdict::kSame);
  EXPECT_EQ(decide(r, p, 0.3e-6), Verdict::kFaster);
  // Unknown base time, or a floor the manifest set to 0: the ratio alone decides.
  EXPECT_EQ(decide(r, p, 0), Verdict::kFaster);
  GatePolicy off;
  off.min_change_s = 0;
  EXPECT_DOUBLE_EQ(with_timer_floor(off, 100e-9).min_change_s, 0);
  EXPECT_EQ(decide(r, with_timer_floor(off, 100e-9), 0.1e-6), Verdict::kFaster);
}

TEST(AdaptiveGate, AShapeAtTheTimerFloorStopsOnceItsChangeIsPinnedBelowTheFloor) {
  // 0.1 us calls with +-30% noise: the ratio stays too wide to pin within 1%, but the change of
  // the median is pinned within tens of nanoseconds.
  std::vector<double> head, base;
  for (int i = 0; i < 200; ++i) {
    base.push_back(100e-9 * (1 + 0.3 * std::sin(i)));
    head.push_back(100e-9 * (1 + 0.3 * std::cos(1.7 * i)));
  }
  GatePolicy no_floor;
  no_floor.min_change_s = 0;
  EXPECT_FALSE(decided_early(head, base, no_floor));
  EXPECT_TRUE(decided_early(head, base, with_timer_floor(GatePolicy{}, 100e-9)));
  // The same noise on 10 us calls is not pinned by a 100 ns floor.
  for (double& x : head) x *= 100;
  for (double& x : base) x *= 100;
  EXPECT_FALSE(decided_early(head, base, with_timer_floor(GatePolicy{}, 100e-9)));
}

}  // namespace
}  // namespace kgate
