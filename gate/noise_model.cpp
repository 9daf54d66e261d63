#include "gate/noise_model.h"

#include <cmath>

namespace kgate {

std::string to_string(NoiseShape shape) {
  switch (shape) {
    case NoiseShape::kNormal:
      return "normal";
    case NoiseShape::kLognormal:
      return "lognormal";
    case NoiseShape::kBimodal:
      return "bimodal";
    case NoiseShape::kOutliers:
      return "outliers";
    case NoiseShape::kGpuLike:
      return "gpu-like";
  }
  return "?";
}

TimingSimulator::TimingSimulator(NoiseModel model, double head_factor, uint64_t seed)
    : model_(model), head_factor_(head_factor), rng_(seed) {}

double TimingSimulator::next_sample(double factor) {
  double t0 = model_.median_s * factor, s = model_.spread;
  switch (model_.shape) {
    case NoiseShape::kNormal:
      return std::max(t0 * (1 + s * normal_(rng_)), t0 * 0.01);
    case NoiseShape::kLognormal:
      return t0 * std::exp(s * normal_(rng_));
    case NoiseShape::kBimodal:
      return t0 * std::exp(s * normal_(rng_)) * (uniform_(rng_) < 0.3 ? 1.08 : 1.0);
    case NoiseShape::kOutliers: {
      double t = t0 * std::exp(s * normal_(rng_));
      if (uniform_(rng_) < 0.02) t *= 1.5 + 3.5 * uniform_(rng_);
      return t;
    }
    case NoiseShape::kGpuLike: {
      double t = t0 * std::exp(s * normal_(rng_) + drift_) * (slow_clock_ ? 1.06 : 1.0);
      if (uniform_(rng_) < 0.01) t *= 1.2 + 2 * uniform_(rng_);
      return t;
    }
  }
  return t0;
}

std::pair<double, double> TimingSimulator::next_round() {
  if (model_.shape == NoiseShape::kGpuLike) {
    // Drift and clock state change between rounds, not within one.
    drift_ = 0.98 * drift_ + 0.2 * model_.spread * normal_(rng_);
    if (uniform_(rng_) < 0.03) slow_clock_ = !slow_clock_;
  }
  double head = next_sample(head_factor_);
  double base = next_sample(1.0);
  return {head, base};
}

}  // namespace kgate

namespace kgate {

SimulatedGate simulate_gate(const NoiseModel& model, double head_factor, uint64_t seed,
                            const GatePolicy& policy, int min_rounds, int max_rounds) {
  SimulatedGate g;
  TimingSimulator sim(model, head_factor, seed);
  EnoughSamples enough = adaptive_stop(policy);
  for (int round = 0; round < max_rounds; ++round) {
    auto [h, b] = sim.next_round();
    g.head.push_back(h);
    g.base.push_back(b);
    int n = round + 1;
    if (n >= min_rounds && n % 5 == 0 && enough(g.head, g.base)) break;
  }
  g.rounds = static_cast<int>(g.head.size());
  g.interval = paired_ratio_interval(g.head, g.base, policy.confidence);
  g.verdict = decide(g.interval, policy, quantile(g.base, 0.5));
  return g;
}

}  // namespace kgate
