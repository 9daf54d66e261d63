#include "runner/guard_zones.h"

#include <cstring>

namespace kgate {
namespace {

std::vector<unsigned char> pattern(size_t first_offset, size_t bytes) {
  std::vector<unsigned char> p(bytes);
  for (size_t i = 0; i < bytes; ++i) p[i] = guard_byte(first_offset + i);
  return p;
}

size_t round_up(size_t value, size_t step) {
  return step == 0 ? value : (value + step - 1) / step * step;
}

}  // namespace

size_t back_guard_bytes(size_t buffer_bytes) {
  return (256 - buffer_bytes % 256) % 256 + 256;
}

uint8_t guard_byte(size_t offset) {
  // Neither 0x00 nor 0xFF (the poison), and not periodic with any element
  // size, so a store of a plausible value is never mistaken for the pattern.
  uint32_t x = static_cast<uint32_t>(offset) * 2654435761u + 0x9E3779B9u;
  uint8_t b = static_cast<uint8_t>(x >> 24);
  return b == 0x00 || b == 0xFF ? 0xA5 : b;
}

Status write_guards(Device& device, const LaunchPlan& plan, const Buffers& buffers) {
  if (!buffers.guarded) return {};
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const ArgPlan& a = plan.args[i];
    if (!a.buffer()) continue;
    auto front = pattern(0, kFrontGuardBytes);
    auto back = pattern(kFrontGuardBytes, back_guard_bytes(a.bytes));
    KGATE_RETURN_IF_ERROR(device.upload(buffers.allocations[i], front.data(), front.size()));
    KGATE_RETURN_IF_ERROR(device.upload(buffers.addresses[i] + a.bytes, back.data(), back.size()));
  }
  return {};
}

std::string describe_guard_damage(const std::string& name, size_t element_size,
                                  const std::vector<unsigned char>& front,
                                  const std::vector<unsigned char>& back) {
  std::string out;
  // Past the end: up to the last changed byte of the back guard.
  for (size_t j = back.size(); j-- > 0;) {
    if (back[j] == guard_byte(kFrontGuardBytes + j)) continue;
    size_t extent = round_up(j + 1, element_size);
    out = "wrote " + std::string(j + 1 == back.size() ? "at least " : "") +
          std::to_string(std::min(extent, back.size())) + " bytes past the end of '" + name + "'";
    break;
  }
  // Before the start: from the first changed byte of the front guard.
  for (size_t j = 0; j < front.size(); ++j) {
    if (front[j] == guard_byte(j)) continue;
    size_t extent = round_up(front.size() - j, element_size);
    if (!out.empty()) out += "; ";
    out += "wrote " + std::string(j == 0 ? "at least " : "") +
           std::to_string(std::min(extent, front.size())) + " bytes before the start of '" + name +
           "'";
    break;
  }
  return out;
}

Result<std::string> check_guards(Device& device, const LaunchPlan& plan, const Buffers& buffers) {
  if (!buffers.guarded) return std::string();
  std::string out;
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const ArgPlan& a = plan.args[i];
    if (!a.buffer()) continue;
    std::vector<unsigned char> front(kFrontGuardBytes), back(back_guard_bytes(a.bytes));
    KGATE_RETURN_IF_ERROR(device.download(front.data(), buffers.allocations[i], front.size()));
    KGATE_RETURN_IF_ERROR(
        device.download(back.data(), buffers.addresses[i] + a.bytes, back.size()));
    std::string damage = describe_guard_damage(a.arg->name, dtype_size(a.arg->dtype), front, back);
    if (damage.empty()) continue;
    if (!out.empty()) out += "; ";
    out += damage;
  }
  return out;
}

}  // namespace kgate
