#pragma once
// The result of checking and timing one kernel on one shape: what the gate
// decides on and what reports show.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/compare.h"
#include "runner/device.h"

namespace kgate {

enum class MeasureStatus {
  kPass,   // correct on fresh inputs, before and after timing
  kFail,   // wrong, unwritten, racy, crashed or hung: the kernel's fault
  kError,  // the harness could not run it (device lost, out of memory)
};
std::string_view to_string(MeasureStatus status);

struct ShapeMeasurement {
  std::string kernel, shape, phase, backend;
  MeasureStatus status = MeasureStatus::kError;
  std::string reason;  // why it failed or errored; empty on pass

  CheckReport check;                      // head against the reference, fresh inputs
  CheckReport repeat;                     // head run twice on the same inputs
  CheckReport check_after;                // head against the reference after timing, new inputs
  std::optional<CheckReport> base_check;  // the base against the head's oracle
  // Why the base was not timed against the head although one was given: its
  // manifest entry takes other inputs on this shape ("the head adds argument
  // 'bias'"). The head is then checked alone.
  std::string base_not_compared;
  // The base failed on this shape (did not load or run, crashed, hung, broke
  // a memory rule): the base's failure, not the head's; the head is then
  // checked alone.
  std::string base_failure;
  // What judged head's outputs (runner/oracle.h): "host reference",
  // "cuda reference" or "base".
  std::string oracle;
  // A faster oracle checked against the host reference on a shape small
  // enough for both (the cuda reference here; the base is base_check).
  std::optional<CheckReport> oracle_check;

  std::vector<double> head_seconds, base_seconds;
  std::vector<double> head_clock_mhz, base_clock_mhz;  // empty where unknown
  int throttled_samples = 0;  // samples whose SM clock fell well below peak
  int input_copies = 1;       // input sets rotated across samples
  size_t bytes_moved = 0;     // LaunchPlan::traffic_bytes: in/out buffers count twice
  // Median of empty launches timed like the samples, right after them (the
  // gate's launch-floor rule); 0 when not timed or the device cannot.
  double launch_floor_s = 0;
  DeviceInfo device;
  uint64_t seed = 0;

  double head_median() const;
  double base_median() const;
  nlohmann::json to_json() const;
  static ShapeMeasurement from_json(const nlohmann::json& j);
};

double median(std::vector<double> values);

}  // namespace kgate
