#include "runner/measurement.h"

#include <algorithm>
#include <cmath>

namespace kgate {

std::string_view to_string(MeasureStatus status) {
  switch (status) {
    case MeasureStatus::kPass:
      return "pass";
    case MeasureStatus::kFail:
      return "fail";
    case MeasureStatus::kError:
      return "error";
  }
  return "?";
}

double median(std::vector<double> values) {
  if (values.empty()) return std::nan("");
  size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  double upper = values[mid];
  if (values.size() % 2) return upper;
  double lower = *std::max_element(values.begin(), values.begin() + mid);
  return (lower + upper) / 2;
}

double ShapeMeasurement::head_median() const {
  return median(head_seconds);
}
double ShapeMeasurement::base_median() const {
  return median(base_seconds);
}

nlohmann::json ShapeMeasurement::to_json() const {
  nlohmann::json j = {{"kernel", kernel},
                      {"shape", shape},
                      {"phase", phase},
                      {"backend", backend},
                      {"status", std::string(to_string(status))},
                      {"reason", reason},
                      {"check", check.to_json()},
                      {"repeat", repeat.to_json()},
                      {"check_after", check_after.to_json()},
                      {"head_seconds", head_seconds},
                      {"base_seconds", base_seconds},
                      {"head_clock_mhz", head_clock_mhz},
                      {"base_clock_mhz", base_clock_mhz},
                      {"throttled_samples", throttled_samples},
                      {"input_copies", input_copies},
                      {"bytes_moved", bytes_moved},
                      {"launch_floor_s", launch_floor_s},
                      {"oracle", oracle},
                      {"device", device.to_json()},
                      {"seed", seed}};
  if (base_check) j["base_check"] = base_check->to_json();
  if (!base_not_compared.empty()) j["base_not_compared"] = base_not_compared;
  if (!base_failure.empty()) j["base_failure"] = base_failure;
  if (oracle_check) j["oracle_check"] = oracle_check->to_json();
  return j;
}

ShapeMeasurement ShapeMeasurement::from_json(const nlohmann::json& j) {
  ShapeMeasurement m;
  m.kernel = j.value("kernel", "");
  m.shape = j.value("shape", "");
  m.phase = j.value("phase", "");
  m.backend = j.value("backend", "");
  std::string status = j.value("status", "error");
  m.status = status == "pass"   ? MeasureStatus::kPass
             : status == "fail" ? MeasureStatus::kFail
                                : MeasureStatus::kError;
  m.reason = j.value("reason", "");
  if (j.contains("check")) m.check = CheckReport::from_json(j["check"]);
  if (j.contains("repeat")) m.repeat = CheckReport::from_json(j["repeat"]);
  if (j.contains("check_after")) m.check_after = CheckReport::from_json(j["check_after"]);
  if (j.contains("base_check")) m.base_check = CheckReport::from_json(j["base_check"]);
  m.base_not_compared = j.value("base_not_compared", "");
  m.base_failure = j.value("base_failure", "");
  if (j.contains("oracle_check")) m.oracle_check = CheckReport::from_json(j["oracle_check"]);
  m.oracle = j.value("oracle", "");
  m.launch_floor_s = j.value("launch_floor_s", 0.0);
  m.head_seconds = j.value("head_seconds", std::vector<double>{});
  m.base_seconds = j.value("base_seconds", std::vector<double>{});
  m.head_clock_mhz = j.value("head_clock_mhz", std::vector<double>{});
  m.base_clock_mhz = j.value("base_clock_mhz", std::vector<double>{});
  m.throttled_samples = j.value("throttled_samples", 0);
  m.input_copies = j.value("input_copies", 1);
  m.bytes_moved = j.value("bytes_moved", size_t{0});
  if (j.contains("device")) m.device = DeviceInfo::from_json(j["device"]);
  m.seed = j.value("seed", uint64_t{0});
  return m;
}

}  // namespace kgate
