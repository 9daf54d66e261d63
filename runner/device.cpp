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
          {"peak_sm_clock_mhz", peak_sm_clock_mhz},
          {"index", index},
          {"uuid", uuid},
          {"pci_bus_id", pci_bus_id},
          {"peak_memory_clock_mhz", peak_memory_clock_mhz},
          {"timer", timer}};
}

DeviceInfo DeviceInfo::from_json(const nlohmann::json& j) {
  DeviceInfo d;
  if (!j.is_object()) return d;
  auto text = [&j](const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  auto number = [&j](const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
  };
  d.name = text("name");
  d.driver = text("driver");
  d.runtime = text("runtime");
  d.arch = text("arch");
  d.multiprocessors = static_cast<int>(number("multiprocessors"));
  d.l2_bytes = static_cast<int64_t>(number("l2_bytes"));
  d.peak_sm_clock_mhz = number("peak_sm_clock_mhz");
  d.index = static_cast<int>(number("index"));
  d.uuid = text("uuid");
  d.pci_bus_id = text("pci_bus_id");
  d.peak_memory_clock_mhz = number("peak_memory_clock_mhz");
  d.timer = text("timer");
  return d;
}

std::string DeviceInfo::identity() const {
  if (uuid.empty() || uuid == "host") return uuid;
  std::string out = "GPU " + std::to_string(index) + ", " + uuid;
  if (!pci_bus_id.empty()) out += ", " + pci_bus_id;
  return out;
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
