#pragma once
// Turns per-instruction counts (PC samples with their stall reasons, or
// executed-instruction counts from SASS metrics) into the hottest instruction
// regions the summary shows: PCs grouped by source line where the cubin has
// line information (-lineinfo), else by 64-byte window of SASS, ranked by
// share of all counts. Pure apart from the cubin lookup, which needs no GPU.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "runner/profile_model/profile_data.h"

namespace kgate::profile {

// What was counted at one PC of one function.
struct PcCount {
  std::string function;
  uint64_t pc_offset = 0;
  uint64_t count = 0;                      // samples or executed warp instructions
  std::map<std::string, uint64_t> stalls;  // reason -> samples (empty for SASS metrics)
};

// "file.cu:42" for a PC, or "" where the cubin has no line information.
using SourceLookup = std::function<std::string(const std::string& function, uint64_t pc_offset)>;

// The `top` regions by count, each with its share of all counts, the stall
// reason most seen there ("selected", the warp issuing, is not a stall) and
// its source line where `source` knows one.
std::vector<profile_model::HotRegion> top_regions(const std::vector<PcCount>& pcs,
                                                  const SourceLookup& source, size_t top = 3);

// SourceLookup over a cubin through CUPTI's SASS-to-source correlation
// (reads the cubin's line table; no GPU needed). An empty cubin knows none.
SourceLookup cubin_source_lookup(const std::string& cubin);

}  // namespace kgate::profile
