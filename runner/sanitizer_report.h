#pragma once
// Reads compute-sanitizer's output (memcheck, racecheck, initcheck,
// synccheck) into one line a verdict can carry: the first finding, where it
// happened, and how many there were.
//   "memcheck: Invalid __global__ write of size 4 bytes at rmsnorm+0x1a0
//    (address 0x7f00 is out of bounds, 1 bytes after the nearest allocation of
//    size 28 bytes); 12 errors"
#include <string>

namespace kgate {

// `tool` names the line; `output` is the sanitizer's stdout and stderr.
// Empty when the output holds no finding.
std::string summarize_sanitizer_output(const std::string& tool, const std::string& output);

}  // namespace kgate
