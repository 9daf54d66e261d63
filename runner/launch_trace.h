#pragma once
// A workload's kernel launches as libkgate_trace.so records them
// (runner/trace_injection/): one entry per kernel execution with its GPU
// time, launch dimensions and the NVTX range path ("decode",
// "decode/layer0") the launching host thread was in. Format: docs/workload.md.
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"

namespace kgate {

struct TracedLaunch {
  std::string name;  // as the driver reports it: mangled for C++ kernels
  uint64_t start_ns = 0, end_ns = 0;
  std::array<uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1};
  uint32_t stream = 0;
  std::string range;  // NVTX range path at launch; empty: outside every range

  uint64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
};

struct LaunchTrace {
  std::vector<TracedLaunch> launches;
  long nvtx_pushes = 0;      // 0: the workload marked no ranges (or NVTX was not injected)
  long dropped_records = 0;  // CUPTI buffers that overflowed: shares are then incomplete
};

Result<LaunchTrace> parse_launch_trace(const nlohmann::json& doc);
Result<LaunchTrace> read_launch_trace(const std::filesystem::path& path);

// The demangled form of a C++ symbol; `name` itself when it is not mangled.
std::string demangle(const std::string& name);

}  // namespace kgate
