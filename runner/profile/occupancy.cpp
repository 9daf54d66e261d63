#include "runner/profile/occupancy.h"

#include <algorithm>
#include <climits>
#include <string_view>
#include <vector>

namespace kgate::profile {
namespace {

int round_up(int v, int unit) {
  return (v + unit - 1) / unit * unit;
}

}  // namespace

SmLimits SmLimits::h100_sxm() {
  return SmLimits{};
}

SmLimits SmLimits::a100() {
  SmLimits l;
  l.shared_per_sm = 167936;  // 164 KiB
  l.multiprocessors = 108;
  return l;
}

profile_model::Occupancy theoretical_occupancy(const SmLimits& limits,
                                               const ResourceReport& resources,
                                               const LaunchDims& dims) {
  profile_model::Occupancy o;
  o.max_warps_per_sm = limits.max_warps_per_sm;
  int threads = int(dims.block[0] * dims.block[1] * dims.block[2]);
  if (threads <= 0 || threads > limits.max_threads_per_block) {
    o.limiter = "threads per block";
    return o;
  }
  int warps_per_block = (threads + 31) / 32;

  struct Limit {
    const char* name;
    int blocks;
  };
  std::vector<Limit> caps;
  caps.push_back({"threads per block", limits.max_warps_per_sm / warps_per_block});
  caps.push_back({"blocks per SM", limits.max_blocks_per_sm});
  if (resources.registers > 0) {
    // Registers are allocated per warp in units; warps come in whole blocks.
    int per_warp = round_up(resources.registers * 32, limits.register_alloc_unit);
    int warps = limits.registers_per_sm / per_warp;
    caps.push_back({"registers", warps / warps_per_block});
  }
  int shared = std::max(0, resources.shared_bytes) + int(dims.shared_bytes);
  int per_block = round_up(shared + limits.reserved_shared_per_block, limits.shared_alloc_unit);
  caps.push_back({"shared memory", per_block > 0 ? limits.shared_per_sm / per_block : INT_MAX});

  // The first smallest cap names the limiter: ties go to the earlier, plainer one,
  // except that a register or shared-memory cap equal to the others is what a
  // change of code would move, so it wins ties.
  const Limit* worst = &caps[0];
  for (const Limit& l : caps) {
    bool resource =
        std::string_view(l.name) == "registers" || std::string_view(l.name) == "shared memory";
    if (l.blocks < worst->blocks ||
        (l.blocks == worst->blocks && resource && l.blocks < limits.max_blocks_per_sm))
      worst = &l;
  }
  o.blocks_per_sm = std::max(0, worst->blocks);
  o.limiter = worst->name;
  o.warps_per_sm = o.blocks_per_sm * warps_per_block;
  o.pct = 100.0 * o.warps_per_sm / limits.max_warps_per_sm;
  return o;
}

}  // namespace kgate::profile
