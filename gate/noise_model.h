#pragma once
// Synthetic kernel timings with known noise shapes, for the statistics tests,
// the benchmarks of decision rules, and for checking the gate without a GPU.
// Deterministic: the same model and seed give the same samples everywhere.
#include <cstdint>
#include <random>
#include <string>
#include <utility>

namespace kgate {

enum class NoiseShape {
  kNormal,     // symmetric, t0 * (1 + spread * z)
  kLognormal,  // right-skewed, t0 * exp(spread * z)
  kBimodal,    // lognormal, and 30% of samples in a slow clock state (+8%)
  kOutliers,   // lognormal, and 2% of samples 1.5x to 5x slower
  kGpuLike,    // lognormal + slow clock drift shared within a round + bimodal
               // clock states that persist for tens of rounds + 1% outliers
};
std::string to_string(NoiseShape shape);

struct NoiseModel {
  NoiseShape shape = NoiseShape::kLognormal;
  double median_s = 20e-6;  // the base kernel's typical time
  double spread = 0.02;     // relative scale of the per-sample noise
};

// Invariant: each call to next_round draws one interleaved round (head and
// base), head's true time being base's times head_factor.
class TimingSimulator {
 public:
  TimingSimulator(NoiseModel model, double head_factor, uint64_t seed);
  // Returns {head, base}.
  std::pair<double, double> next_round();
  double next_sample(double factor);

 private:
  NoiseModel model_;
  double head_factor_;
  std::mt19937_64 rng_;
  std::normal_distribution<double> normal_{0.0, 1.0};
  std::uniform_real_distribution<double> uniform_{0.0, 1.0};
  double drift_ = 0;  // AR(1) log drift (kGpuLike)
  bool slow_clock_ = false;
};

}  // namespace kgate

#include <vector>

#include "core/manifest.h"
#include "gate/paired_ratio.h"
#include "gate/verdict.h"

namespace kgate {

struct SimulatedGate {
  Verdict verdict = Verdict::kInconclusive;
  RatioInterval interval;
  int rounds = 0;
  std::vector<double> head, base;
};

// Runs the gate's sampling loop exactly as the harness does (a check every 5
// rounds from min_rounds on, stop at max_rounds) on simulated timings.
SimulatedGate simulate_gate(const NoiseModel& model, double head_factor, uint64_t seed,
                            const GatePolicy& policy, int min_rounds, int max_rounds);

}  // namespace kgate
