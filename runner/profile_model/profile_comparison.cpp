#include "runner/profile_model/profile_comparison.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "runner/profile_model/bottleneck.h"
#include "runner/profile_model/profile_text.h"

namespace kgate::profile_model {

using text::fmt;
using text::num;
using text::pct;
using text::seconds;

std::string render_comparison(const ProfileData& before, const ProfileData& after) {
  Classification cb = classify(before), ca = classify(after);
  std::ostringstream o;
  o << "### Profile before / after: " << after.kernel << " / " << after.shape << "\n\n";
  o << "Bottleneck: " << describe(cb.bottleneck) << " -> " << describe(ca.bottleneck) << "\n\n";
  o << "| metric | before | after | change |\n|---|---|---|---|\n";
  auto row_pct = [&](const char* name, std::optional<double> b, std::optional<double> a) {
    o << "| " << name << " | " << pct(b) << " | " << pct(a) << " | "
      << (a && b ? fmt("%+.1f pts", *a - *b) : "n/a") << " |\n";
  };
  auto row_num = [&](const char* name, std::optional<double> b, std::optional<double> a) {
    o << "| " << name << " | " << num(b, "%.1f") << " | " << num(a, "%.1f") << " | "
      << (a && b ? fmt("%+.1f", *a - *b) : "n/a") << " |\n";
  };
  auto launch = [](const ProfileData& p) {
    if (p.backend == "host") return std::string("one call (host)");
    const LaunchDims& d = p.dims;
    char buf[160];
    std::snprintf(buf, sizeof buf, "grid (%u, %u, %u) block (%u, %u, %u)", d.grid[0], d.grid[1],
                  d.grid[2], d.block[0], d.block[1], d.block[2]);
    return std::string(buf) +
           (d.shared_bytes ? " + " + std::to_string(d.shared_bytes) + " B shared" : "");
  };
  const std::string lb = launch(before), la = launch(after);
  o << "| launch | " << lb << " | " << la << " | " << (lb == la ? "same" : "changed") << " |\n";
  auto tb = kernel_seconds(before), ta = kernel_seconds(after);
  o << "| kernel time | " << (tb ? seconds(*tb) : "n/a") << " | " << (ta ? seconds(*ta) : "n/a")
    << " | " << (ta && tb && *ta > 0 ? fmt("%.2fx faster", *tb / *ta) : "n/a") << " |\n";
  auto bw = [](const ProfileData& p) -> std::optional<double> {
    auto v = achieved_bandwidth(p);
    return v ? std::optional<double>(*v / 1e9) : std::nullopt;
  };
  row_num("bandwidth (GB/s)", bw(before), bw(after));
  row_pct("bandwidth of measured ceiling", bandwidth_of_ceiling(before),
          bandwidth_of_ceiling(after));
  auto tp = [](const ProfileData& p, const char* key) { return throughput_pct(p, key); };
  row_pct("DRAM throughput", tp(before, metric::kDramPct), tp(after, metric::kDramPct));
  row_pct("memory speed of light", tp(before, metric::kMemPct), tp(after, metric::kMemPct));
  row_pct("SM speed of light", tp(before, metric::kSmPct), tp(after, metric::kSmPct));
  row_num("load sectors/request", sectors_per_request(before, true),
          sectors_per_request(after, true));
  row_num("store sectors/request", sectors_per_request(before, false),
          sectors_per_request(after, false));
  row_pct("L2 hit rate", l2_hit_rate(before), l2_hit_rate(after));
  row_pct("achieved occupancy", achieved_occupancy(before), achieved_occupancy(after));
  auto theo = [](const ProfileData& p) -> std::optional<double> {
    return p.theoretical ? std::optional<double>(p.theoretical->pct) : std::nullopt;
  };
  row_pct("theoretical occupancy", theo(before), theo(after));
  auto reg = [](const ProfileData& p) -> std::optional<double> {
    return p.resources.registers >= 0 ? std::optional<double>(p.resources.registers) : std::nullopt;
  };
  row_num("registers/thread", reg(before), reg(after));
  auto spill = [](const ProfileData& p) -> std::optional<double> {
    if (p.resources.spill_store_bytes < 0) return std::nullopt;
    return double(p.resources.spill_store_bytes + std::max(0, p.resources.spill_load_bytes));
  };
  row_num("spill bytes", spill(before), spill(after));
  auto stall = [](const ProfileData& p) {
    auto s = text::top_stalls(p, 1);
    return s.empty() ? std::string("n/a") : s[0].first + fmt(" (%.1f)", s[0].second);
  };
  o << "| top stall (cycles/instruction) | " << stall(before) << " | " << stall(after) << " | |\n";
  if (!before.missing.empty() || !after.missing.empty())
    o << "\nSome numbers are missing (n/a); the profiles say why.\n";
  return o.str();
}

}  // namespace kgate::profile_model
