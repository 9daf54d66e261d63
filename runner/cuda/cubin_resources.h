#pragma once
// Reads a kernel's resources out of the compiled cubin itself, so they do not
// depend on ptxas's verbose log: NVRTC does not always return that log (on the
// H200 machine of docs/BENCHMARKS.md it came back empty), and a cached or
// externally built cubin has none.
//
// A cubin is an ELF64 file. Its `.nv.info` section holds per-function
// attributes as records {format u8, attribute u8, size u16, data}; the ones
// read here carry {symbol index u32, value u32}:
//   0x2f  register count per thread
//   0x11  stack frame bytes per thread
// Static shared memory is not read: the function's `.nv.shared` section also
// holds the architecture's reserved shared memory (1 KB on sm_90). Spills go
// to the stack frame, so a frame of 0 bytes means no spills; a non-zero frame
// leaves the spill counts unknown (-1).
//
// The parser checks every offset against the buffer: a truncated or foreign
// file gives a report with every field -1, never a crash.
#include <string>
#include <string_view>
#include <vector>

#include "runner/program.h"

namespace kgate::cuda {

// The resources of the function whose symbol is `entry` (the lowered name);
// fields the cubin does not state stay -1.
ResourceReport read_cubin_resources(std::string_view cubin, const std::string& entry);

// The sizes in bytes of the kernel's parameters, in order, from the
// function's own `.nv.info.<entry>` section: its parameter records
// (attribute 0x17: {u32 index, u16 ordinal, u16 offset, u32 flags}, the
// size in flags bits 18 to 31). Empty when the cubin does not say.
std::vector<size_t> read_cubin_param_sizes(std::string_view cubin, const std::string& entry);

// `report` with every field it lacks (-1) taken from `fallback`.
ResourceReport fill_unknown(ResourceReport report, const ResourceReport& fallback);

}  // namespace kgate::cuda
