#include "runner/profile_model/profile_summary.h"

#include <sstream>

#include "runner/profile_model/profile_text.h"

namespace kgate::profile_model {

using text::bytes;
using text::coalescing;
using text::fmt;
using text::hex;
using text::pct;
using text::rate;
using text::seconds;
using text::top_stalls;

size_t count_words(const std::string& text) {
  std::istringstream in(text);
  size_t n = 0;
  for (std::string w; in >> w;) ++n;
  return n;
}

std::string render_summary(const ProfileData& p) {
  Classification c = classify(p);
  std::ostringstream o;
  o << "### Profile: " << p.kernel << " / " << p.shape << " on " << p.device << " (" << p.backend
    << ")\n\n";
  o << "**Bottleneck: " << describe(c.bottleneck) << ".** " << c.evidence << "\n";
  o << "What usually helps: " << c.advice << "\n\n";

  const LaunchDims& d = p.dims;
  if (p.backend == "host")
    o << "- Launch: one call on the CPU (host backend, no grid)";
  else
    o << "- Launch: grid (" << d.grid[0] << ", " << d.grid[1] << ", " << d.grid[2] << "), block ("
      << d.block[0] << ", " << d.block[1] << ", " << d.block[2] << "), dynamic shared "
      << d.shared_bytes << " B";
  if (auto s = kernel_seconds(p)) o << "; kernel time " << seconds(*s);
  if (p.timed_seconds && p.get(metric::kDurationNs))
    o << " (timed median " << seconds(*p.timed_seconds) << ")";
  o << ".\n";

  const ResourceReport& r = p.resources;
  auto known = [](int v) { return v >= 0 ? std::to_string(v) : std::string("n/a"); };
  o << "- Compiler: " << known(r.registers) << " registers/thread, " << known(r.shared_bytes)
    << " B static shared/block, stack " << known(r.stack_bytes) << " B, spills "
    << known(r.spill_store_bytes) << " B stored / " << known(r.spill_load_bytes) << " B loaded";
  if (spills(p)) o << " (SPILLS)";
  if (r.local_bytes > 0) o << ", local memory " << r.local_bytes << " B/thread";
  if (auto lb = p.get(metric::kLocalBytes); lb && *lb > 0)
    o << "; local-memory traffic " << bytes(*lb);
  o << ".\n";

  o << "- Occupancy: achieved " << pct(achieved_occupancy(p));
  if (p.theoretical)
    o << " vs theoretical " << fmt("%.0f%%", p.theoretical->pct) << " ("
      << p.theoretical->blocks_per_sm << " blocks/SM, limited by " << p.theoretical->limiter << ")";
  else
    o << " vs theoretical n/a";
  o << ".\n";

  o << "- Speed of light: SM " << pct(throughput_pct(p, metric::kSmPct)) << ", memory "
    << pct(throughput_pct(p, metric::kMemPct)) << ", DRAM "
    << pct(throughput_pct(p, metric::kDramPct)) << ".\n";

  o << "- Memory: ";
  if (auto b = p.get(metric::kDramBytes))
    o << bytes(*b) << " moved in DRAM";
  else if (p.bytes_moved)
    o << bytes(double(p.bytes_moved)) << " in buffers (launch plan)";
  else
    o << "bytes n/a";
  if (auto bw = achieved_bandwidth(p)) {
    o << ", " << rate(*bw);
    if (auto of = bandwidth_of_ceiling(p))
      o << " = " << fmt("%.0f%%", *of) << " of the measured "
        << rate(p.ceilings->bandwidth_bytes_per_s) << " ceiling";
  }
  o << "; L1 hit " << pct(l1_hit_rate(p)) << ", L2 hit " << pct(l2_hit_rate(p)) << ".\n";
  o << "- Coalescing: loads " << coalescing(p, true) << "; stores " << coalescing(p, false)
    << ".\n";

  o << "- Compute: FP32 ";
  if (auto f = flops_rate(p)) {
    o << fmt("%.2f TFLOP/s", *f / 1e12);
    if (p.ceilings && p.ceilings->fp32_flops_per_s > 0)
      o << fmt(" (%.0f%% of measured ceiling)", *f / p.ceilings->fp32_flops_per_s * 100);
  } else {
    o << "n/a";
  }
  o << "; branch efficiency " << text::branches(p) << "; warp execution efficiency "
    << pct(warp_efficiency(p)) << ".\n";

  auto stalls = top_stalls(p, 3);
  o << "- Top stalls (cycles per issued instruction): ";
  if (stalls.empty()) o << "n/a";
  for (size_t i = 0; i < stalls.size(); ++i)
    o << (i ? ", " : "") << stalls[i].first << fmt(" %.1f", stalls[i].second);
  o << ".\n";

  o << "- Hottest regions: ";
  if (p.hot_regions.empty()) o << "n/a";
  for (size_t i = 0; i < p.hot_regions.size() && i < 3; ++i) {
    const HotRegion& h = p.hot_regions[i];
    o << (i ? "; " : "") << fmt("%.0f%%", h.share_pct) << " at "
      << (h.source.empty() ? h.function + "+" + hex(h.pc_offset) : h.source);
    if (!h.top_stall.empty()) o << " (" << h.top_stall << ")";
    if (!h.sass.empty()) o << " `" << h.sass.substr(0, 40) << "`";
  }
  o << ".\n";
  if (!p.hot_regions.empty() && !p.hot_regions_note.empty())
    o << "  (From " << p.hot_regions_note.substr(0, 400) << ".)\n";

  // Numbers not measured, and numbers measured but impossible or unchecked:
  // a withheld number is said, never shown.
  std::map<std::string, std::string> missing = p.missing;
  for (auto& [what, why] : number_problems(p)) missing.emplace(what, why);
  if (!missing.empty()) {
    o << "\nMissing numbers:\n";
    size_t shown = 0;
    for (const auto& [what, why] : missing) {
      if (++shown > 8) break;
      o << "- " << what << ": " << why.substr(0, 300) << "\n";
    }
  }

  std::string text = o.str();
  if (count_words(text) <= kMaxSummaryWords) return text;
  // Over the bound (long reasons or names): keep the first words, say so.
  std::istringstream in(text);
  std::string out, w;
  for (size_t n = 0; n + 3 < kMaxSummaryWords && in >> w; ++n) out += w + " ";
  return out + "(summary truncated)\n";
}

nlohmann::json summary_json(const ProfileData& p) {
  Classification c = classify(p);
  nlohmann::json j = p.to_json();
  j["bottleneck"] = std::string(to_string(c.bottleneck));
  j["bottleneck_text"] = std::string(describe(c.bottleneck));
  j["evidence"] = c.evidence;
  j["advice"] = c.advice;
  nlohmann::json derived = nlohmann::json::object();
  auto put = [&](const char* k, std::optional<double> v) {
    if (v) derived[k] = *v;
  };
  put("kernel_seconds", kernel_seconds(p));
  put("achieved_bandwidth_bytes_per_s", achieved_bandwidth(p));
  put("bandwidth_pct_of_ceiling", bandwidth_of_ceiling(p));
  put("fp32_flops_per_s", flops_rate(p));
  put("ld_sectors_per_request", sectors_per_request(p, true));
  put("st_sectors_per_request", sectors_per_request(p, false));
  put("ld_coalescing_pct", coalescing_pct(p, true));
  put("st_coalescing_pct", coalescing_pct(p, false));
  put("branch_efficiency_pct", branch_efficiency(p));
  put("warp_efficiency_pct", warp_efficiency(p));
  put("l2_hit_pct", l2_hit_rate(p));
  put("l1_hit_pct", l1_hit_rate(p));
  put("achieved_occupancy_pct", achieved_occupancy(p));
  j["derived"] = derived;
  j["withheld"] = number_problems(p);
  return j;
}

}  // namespace kgate::profile_model
