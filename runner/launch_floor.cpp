#include "runner/launch_floor.h"

#include <vector>

#include "runner/measurement.h"

namespace kgate {

double measure_launch_floor(Device& device, int samples) {
  std::vector<double> seconds;
  for (int i = 0; i < samples; ++i) {
    auto sample = device.time_empty_launch();
    if (!sample.ok()) return 0;
    seconds.push_back(sample->seconds);
  }
  return seconds.empty() ? 0 : median(seconds);
}

}  // namespace kgate
