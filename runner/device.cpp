#include "runner/device.h"

namespace kgate {

nlohmann::json DeviceInfo::to_json() const {
  return {{"name", name},
          {"driver", driver},
          {"runtime", runtime},
          {"arch", arch},
          {"multiprocessors", multiprocessors},
          {"l2_bytes", l2_bytes},
          {"peak_sm_clock_mhz", peak_sm_clock_mhz}};
}

}  // namespace kgate
