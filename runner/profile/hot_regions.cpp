#include "runner/profile/hot_regions.h"

#include <cupti_pcsampling.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

namespace kgate::profile {
namespace {

constexpr uint64_t kRegionBytes = 64;  // four 16-byte SASS instructions

struct Region {
  std::string function, source;
  uint64_t pc = UINT64_MAX;
  uint64_t count = 0;
  std::map<std::string, uint64_t> stalls;
};

}  // namespace

std::vector<profile_model::HotRegion> top_regions(const std::vector<PcCount>& pcs,
                                                  const SourceLookup& source, size_t top) {
  std::map<std::string, Region> regions;
  uint64_t total = 0;
  for (const PcCount& pc : pcs) {
    if (pc.count == 0) continue;
    std::string line = source ? source(pc.function, pc.pc_offset) : "";
    uint64_t window = pc.pc_offset / kRegionBytes * kRegionBytes;
    std::string key = line.empty() ? pc.function + "+" + std::to_string(window) : line;
    Region& r = regions[key];
    r.function = pc.function;
    r.source = line;
    r.pc = std::min(r.pc, line.empty() ? window : pc.pc_offset);
    r.count += pc.count;
    total += pc.count;
    for (const auto& [reason, n] : pc.stalls) r.stalls[reason] += n;
  }
  std::vector<Region> sorted;
  for (auto& [key, r] : regions) sorted.push_back(std::move(r));
  // Ties by PC, so the order does not depend on map order of source names.
  std::sort(sorted.begin(), sorted.end(), [](const Region& a, const Region& b) {
    return a.count != b.count ? a.count > b.count : a.pc < b.pc;
  });
  std::vector<profile_model::HotRegion> out;
  for (size_t i = 0; i < sorted.size() && i < top; ++i) {
    profile_model::HotRegion h;
    h.function = sorted[i].function;
    h.pc_offset = sorted[i].pc;
    h.source = sorted[i].source;
    h.samples = sorted[i].count;
    h.share_pct = 100.0 * double(sorted[i].count) / double(total);
    uint64_t best = 0;
    for (const auto& [name, n] : sorted[i].stalls)
      if (n > best && name != "selected") best = n, h.top_stall = name;
    out.push_back(std::move(h));
  }
  return out;
}

SourceLookup cubin_source_lookup(const std::string& cubin) {
  if (cubin.empty()) return {};
  // The lookup outlives the caller's string only through this copy.
  auto image = std::make_shared<std::string>(cubin);
  return [image](const std::string& function, uint64_t pc_offset) -> std::string {
    CUpti_GetSassToSourceCorrelationParams p{};
    p.size = CUpti_GetSassToSourceCorrelationParamsSize;
    p.cubin = image->data();
    p.cubinSize = image->size();
    p.functionName = function.c_str();
    p.pcOffset = pc_offset;
    if (cuptiGetSassToSourceCorrelation(&p) != CUPTI_SUCCESS) return "";
    std::string line;
    if (p.lineNumber > 0 && p.fileName)
      line = std::string(p.fileName) + ":" + std::to_string(p.lineNumber);
    std::free(p.fileName);  // CUPTI allocates both; the caller frees them
    std::free(p.dirName);
    return line;
  };
}

}  // namespace kgate::profile
