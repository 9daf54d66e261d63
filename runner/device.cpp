#include "runner/device.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "runner/inputs.h"

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

Result<bool> Device::equal(DeviceAddress a, DeviceAddress b, size_t bytes) {
  constexpr size_t kPiece = size_t{16} << 20;
  std::vector<unsigned char> left(std::min(bytes, kPiece)), right(left.size());
  for (size_t done = 0; done < bytes;) {
    const size_t n = std::min(kPiece, bytes - done);
    KGATE_RETURN_IF_ERROR(download(left.data(), a + done, n));
    KGATE_RETURN_IF_ERROR(download(right.data(), b + done, n));
    if (std::memcmp(left.data(), right.data(), n) != 0) return false;
    done += n;
  }
  return true;
}

Status Device::draw(DeviceAddress dst, const input_formula::DrawSpec& spec, size_t bytes) {
  Bytes data = draw_bytes(spec, bytes);
  return upload(dst, data.data(), bytes);
}

}  // namespace kgate
