#pragma once
// A/A calibration: a kernel gated against itself many times. Every "faster"
// or "slower" verdict is a false alarm, so the rate measured here is the
// gate's real false-alarm rate on this machine, and the spread of the
// estimates is the noise floor below which no change can be seen.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gate/ab_gate.h"

namespace kgate {

struct ShapeCalibration {
  std::string shape, phase;
  int runs = 0, false_alarms = 0, inconclusive = 0, errors = 0;
  double noise_floor = 0;        // P95 of |estimate - 1| over runs
  double median_half_width = 0;  // median of (high - low) / 2 of the intervals
  double median_rounds = 0;
  double mean_seconds = 0;  // wall time per gate of this shape
  std::vector<double> estimates;

  double false_alarm_rate() const { return runs ? double(false_alarms) / runs : 0; }
  nlohmann::json to_json() const;
};

struct KernelCalibration {
  std::string kernel, backend, device;
  GatePolicy policy;
  std::vector<ShapeCalibration> shapes;
  nlohmann::json to_json() const;
};

// Compiles the kernel once and gates it against itself `runs` times.
Result<KernelCalibration> calibrate_kernel(const Manifest& manifest, const Kernel& kernel,
                                           Backend& backend, int runs, const GateOptions& options);

}  // namespace kgate
