#include "runner/profile_model/profile_table.h"

#include <sstream>

#include "runner/profile_model/bottleneck.h"
#include "runner/profile_model/profile_text.h"

namespace kgate::profile_model {
namespace {

using text::fmt;

std::string percent0(std::optional<double> v) {
  return v ? fmt("%.0f%%", *v) : "n/a";
}

std::string sectors(const ProfileData& p) {
  auto ld = sectors_per_request(p, true), st = sectors_per_request(p, false);
  if (!ld && !st) return "n/a";
  return text::num(ld, "%.1f") + " / " + text::num(st, "%.1f");
}

std::string occupancy(const ProfileData& p) {
  std::string s = percent0(achieved_occupancy(p)) + " / ";
  if (!p.theoretical) return s + "n/a";
  return s + fmt("%.0f%%", p.theoretical->pct) + " (" + p.theoretical->limiter + ")";
}

std::string stall(const ProfileData& p) {
  auto top = text::top_stalls(p, 1);
  return top.empty() ? "n/a" : top[0].first + fmt(" %.1f", top[0].second);
}

std::string branches(const ProfileData& p) {
  if (auto eff = branch_efficiency(p)) return text::pct(eff);
  if (std::string none = text::no_branches(p); !none.empty()) return none;
  // Withheld (counters impossible or unchecked): the summary says why.
  return number_problems(p).count("branch efficiency") ? "withheld" : "n/a";
}

std::string hot(const ProfileData& p) {
  if (p.hot_regions.empty()) return "n/a";
  const HotRegion& h = p.hot_regions[0];
  std::string where = h.source.empty() ? h.function + "+" + text::hex(h.pc_offset) : h.source;
  // The file's folder adds nothing in a table: keep "rmsnorm.cu:31".
  if (auto slash = where.rfind('/'); slash != std::string::npos) where = where.substr(slash + 1);
  return fmt("%.0f%% ", h.share_pct) + where;
}

// A cell never breaks the table: a '|' in a reason would.
std::string cell(std::string s) {
  for (char& c : s)
    if (c == '|') c = '/';
  return s;
}

}  // namespace

std::string render_profile_table(const std::vector<ProfileData>& profiles) {
  std::ostringstream o;
  o << "| kernel | shape | class | DRAM % of ceiling | L2 hit | sectors/request (ld / st) | "
       "occupancy achieved / theoretical (limiter) | top stall | branch efficiency | "
       "hottest region |\n";
  o << "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const ProfileData& p : profiles) {
    o << "| " << cell(p.kernel) << " | " << cell(p.shape) << " | "
      << describe(classify(p).bottleneck) << " | " << percent0(bandwidth_of_ceiling(p)) << " | "
      << percent0(l2_hit_rate(p)) << " | " << sectors(p) << " | " << cell(occupancy(p)) << " | "
      << cell(stall(p)) << " | " << branches(p) << " | " << cell(hot(p)) << " |\n";
  }
  return o.str();
}

}  // namespace kgate::profile_model
