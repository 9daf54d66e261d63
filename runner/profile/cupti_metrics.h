#pragma once
// The hardware metrics kgate reads per launch, by their CUPTI names, and the
// host side of the CUPTI profiler: turning a metric list into a config image
// for a chip, and a counter-data image back into values. The host side needs
// no GPU (CUPTI knows the chips it supports), so a wrong metric name is
// caught by a CPU test.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"

namespace kgate::profile {

// A CUPTI metric and the key it fills in ProfileData (profile_summary.h);
// stall metrics fill ProfileData::stalls under `key`.
struct MetricSpec {
  std::string key;
  std::string name;
  bool stall = false;
};

// Every metric kgate collects on a chip ("GH100", "GA100", ...): counters,
// speed-of-light throughputs and the warp stall reasons the chip has.
std::vector<MetricSpec> metric_list(const std::string& chip);

// "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35)" with CUPTI's own text.
std::string cupti_error_text(int result);

// CUPTI's profiler host object for one chip. Invariant: initialized while alive.
class CuptiHost {
 public:
  // `counter_availability` may be empty (all counters assumed available).
  static Result<CuptiHost> open(const std::string& chip,
                                const std::vector<uint8_t>& counter_availability = {});
  CuptiHost(CuptiHost&& other) noexcept;
  CuptiHost& operator=(CuptiHost&&) = delete;
  ~CuptiHost();

  // The config image that schedules `metrics`; an unknown name is an Error
  // that names it.
  Result<std::vector<uint8_t>> config_image(const std::vector<std::string>& metrics);
  // Passes the config image needs (kernel replays).
  Result<size_t> passes(std::vector<uint8_t>& config_image);
  // Values of `metrics` for range `range` of a decoded counter-data image.
  Result<std::vector<double>> evaluate(const std::vector<uint8_t>& counter_data, size_t range,
                                       const std::vector<std::string>& metrics);

 private:
  explicit CuptiHost(void* object) : object_(object) {}
  void* object_ = nullptr;  // CUpti_Profiler_Host_Object*
};

std::vector<std::string> metric_names(const std::vector<MetricSpec>& specs);

}  // namespace kgate::profile
