#pragma once
// Guard zones around every buffer of a correctness run: a known byte pattern
// right before a buffer's first byte and right after its last, checked after
// the run, so a kernel that writes out of bounds (a past-the-end write for a
// size that is not a multiple of its vector width, a negative index) is
// caught with the buffer's name and the extent, on every backend.
//
// Layout of one guarded allocation:
//   [front guard: kFrontGuardBytes][buffer: bytes][back guard: back_guard_bytes(bytes)]
// The front guard keeps the buffer's start 256-byte aligned (as cuMemAlloc's
// is); the back guard starts at the buffer's last byte + 1, whatever its
// size, and runs to a 256-byte boundary plus 256 bytes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "runner/device.h"
#include "runner/device_buffers.h"
#include "runner/launch_plan.h"

namespace kgate {

inline constexpr size_t kFrontGuardBytes = 256;

size_t back_guard_bytes(size_t buffer_bytes);

// The pattern byte at `offset` of a guard zone (front: 0.., back: 256..).
uint8_t guard_byte(size_t offset);

// Writes the pattern into both guards of every buffer (guarded buffers only).
Status write_guards(Device& device, const LaunchPlan& plan, const Buffers& buffers);

// "" when every guard is intact, else what broke, buffer by buffer:
// "wrote 4 bytes past the end of 'out'", "wrote 16 bytes before the start of 'x'".
Result<std::string> check_guards(Device& device, const LaunchPlan& plan, const Buffers& buffers);

// The message for one buffer's guards as read back (empty when intact);
// extents are rounded up to whole elements of `element_size` bytes.
std::string describe_guard_damage(const std::string& name, size_t element_size,
                                  const std::vector<unsigned char>& front,
                                  const std::vector<unsigned char>& back);

}  // namespace kgate
