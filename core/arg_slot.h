#pragma once
// The bytes of one kernel parameter as a launch passes them: a device
// address, a scalar's value, or a struct passed by value.
#include <cstddef>
#include <vector>

namespace kgate {

// Invariant: data() holds size() bytes; a parameter over 8 bytes (a struct)
// lives in `large`, anything else in `bytes`.
struct ArgSlot {
  alignas(8) unsigned char bytes[8] = {};
  size_t size = 0;
  std::vector<unsigned char> large;

  const unsigned char* data() const { return large.empty() ? bytes : large.data(); }
  unsigned char* data() { return large.empty() ? bytes : large.data(); }
};

}  // namespace kgate
