// Compares decision rules for "is head slower than base?" on synthetic
// timings with GPU-like noise: kgate's paired signed-rank rule with adaptive
// sampling against (a) the median of 20 runs checked against a stored
// baseline's P10–P90 band and (b) a single run against a fixed 5% threshold.
// Reports the A/A false-alarm rate and the rate at which planted slowdowns of
// 2%, 5% and 10% are caught. Usage: bench_gate_rules [trials] [max_rounds]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "gate/noise_model.h"
#include "gate/paired_ratio.h"
#include "gate/verdict.h"

using namespace kgate;

namespace {

struct Scenario {
  std::string name;
  NoiseModel model;
  double session_sigma;  // day-to-day level change between baseline and now
};

struct Rates {
  int trials = 0, kgate_alarm = 0, kgate_fail = 0, band_alarm = 0, fixed_alarm = 0;
  double rounds = 0;
};

// One trial: kgate on an interleaved A/B run; the two simpler rules on the
// same session's head samples against a baseline stored in another session.
void trial(const Scenario& sc, double shift, uint64_t seed, int max_rounds,
           const GatePolicy& policy, Rates& r, bool aa) {
  SimulatedGate g = simulate_gate(sc.model, 1 + shift, seed, policy, 20, max_rounds);
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ULL);
  std::normal_distribution<double> z;
  double session = std::exp(sc.session_sigma * z(rng));
  TimingSimulator stored(sc.model, 1.0, seed * 31 + 7);
  std::vector<double> baseline;
  for (int i = 0; i < 20; ++i) baseline.push_back(stored.next_sample(session));
  TimingSimulator now(sc.model, 1 + shift, seed * 17 + 3);
  std::vector<double> head20;
  for (int i = 0; i < 20; ++i) head20.push_back(now.next_round().first);
  double p10 = quantile(baseline, 0.1), p90 = quantile(baseline, 0.9),
         med = quantile(baseline, 0.5);
  double head_median = quantile(head20, 0.5), single = head20.front();
  ++r.trials;
  r.rounds += g.rounds;
  if (aa) {  // any claim of a change is a false alarm
    r.kgate_alarm += g.verdict == Verdict::kSlower || g.verdict == Verdict::kFaster;
    r.band_alarm += head_median > p90 || head_median < p10;
    r.fixed_alarm += std::abs(single / med - 1) > 0.05;
  } else {  // caught: flagged as slower
    r.kgate_alarm += g.verdict == Verdict::kSlower;
    r.band_alarm += head_median > p90;
    r.fixed_alarm += single / med - 1 > 0.05;
  }
  r.kgate_fail += breaks_policy(g.verdict, g.interval, policy);
}

std::string pct(int n, int d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * n / std::max(d, 1));
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  int trials = argc > 1 ? std::atoi(argv[1]) : 1000;
  int max_rounds = argc > 2 ? std::atoi(argv[2]) : 3000;
  GatePolicy policy;  // defaults: 99% confidence, 1% resolution, fail above +3%
  std::vector<Scenario> scenarios = {
      {"20us kernel, gpu-like noise 1%, baselines drift 1%/day",
       {NoiseShape::kGpuLike, 20e-6, 0.01},
       0.01},
      {"3us kernel, gpu-like noise 4%, baselines drift 1%/day",
       {NoiseShape::kGpuLike, 3e-6, 0.04},
       0.01},
      {"20us kernel, gpu-like noise 1%, no day-to-day drift",
       {NoiseShape::kGpuLike, 20e-6, 0.01},
       0.0},
      {"20us kernel, heavy outliers 2%", {NoiseShape::kOutliers, 20e-6, 0.02}, 0.0},
      {"20us kernel, bimodal clocks", {NoiseShape::kBimodal, 20e-6, 0.01}, 0.0},
  };
  std::printf(
      "trials per cell: %d (A/A: %d), kgate max rounds: %d, policy: %.0f%% confidence, resolution "
      "%.0f%%, "
      "fail above +%.0f%%\n\n",
      trials, 2 * trials, max_rounds, policy.confidence * 100, policy.resolution * 100,
      policy.max_regression * 100);
  std::printf(
      "| scenario | planted | kgate flags | kgate fails gate | kgate mean rounds | median-of-20 vs "
      "P10-P90 | "
      "single run vs 5%% |\n|---|---|---|---|---|---|---|\n");
  for (const Scenario& sc : scenarios) {
    for (double shift : {0.0, 0.02, 0.05, 0.10}) {
      Rates r;
      int n = shift == 0 ? 2 * trials : trials;
      for (int t = 0; t < n; ++t)
        trial(sc, shift, 1000003ULL * (t + 1) + static_cast<uint64_t>(shift * 1000), max_rounds,
              policy, r, shift == 0);
      std::printf(
          "| %s | %s | %s | %s | %.0f | %s | %s |\n", sc.name.c_str(),
          shift == 0 ? "A/A" : ("+" + std::to_string(static_cast<int>(shift * 100)) + "%").c_str(),
          pct(r.kgate_alarm, r.trials).c_str(), pct(r.kgate_fail, r.trials).c_str(),
          r.rounds / r.trials, pct(r.band_alarm, r.trials).c_str(),
          pct(r.fixed_alarm, r.trials).c_str());
      std::fflush(stdout);
    }
  }
  return 0;
}
