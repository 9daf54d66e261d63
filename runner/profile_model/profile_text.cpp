#include "runner/profile_model/profile_text.h"

#include <algorithm>
#include <cstdio>

namespace kgate::profile_model::text {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string pct(std::optional<double> v) {
  return v ? fmt("%.1f%%", *v) : "n/a";
}
std::string num(std::optional<double> v, const char* f) {
  return v ? fmt(f, *v) : "n/a";
}

std::string seconds(double s) {
  if (s < 1e-3) return fmt("%.2f us", s * 1e6);
  if (s < 1) return fmt("%.3f ms", s * 1e3);
  return fmt("%.3f s", s);
}

std::string bytes(double b) {
  if (b >= 1e9) return fmt("%.2f GB", b / 1e9);
  if (b >= 1e6) return fmt("%.2f MB", b / 1e6);
  if (b >= 1e3) return fmt("%.1f KB", b / 1e3);
  return fmt("%.0f B", b);
}

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string rate(double bytes_per_s) {
  if (bytes_per_s < 1e9) return fmt("%.1f MB/s", bytes_per_s / 1e6);
  return fmt("%.0f GB/s", bytes_per_s / 1e9);
}

std::vector<std::pair<std::string, double>> top_stalls(const ProfileData& p, size_t n) {
  std::vector<std::pair<std::string, double>> v(p.stalls.begin(), p.stalls.end());
  // "selected" is the warp issuing, not a stall.
  std::erase_if(v, [](const auto& s) { return s.first == "selected"; });
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (v.size() > n) v.resize(n);
  return v;
}

std::string coalescing(const ProfileData& p, bool loads) {
  auto spr = sectors_per_request(p, loads);
  auto eff = coalescing_pct(p, loads);
  if (!spr && !eff) return "n/a";
  std::string s = num(spr, "%.1f") + " sectors/request";
  if (eff) s += " (" + fmt("%.0f%%", *eff) + " of fetched bytes used)";
  return s;
}

std::string no_branches(const ProfileData& p) {
  if (no_branch_instructions(p)) return "no branch instructions";
  auto api = p.get(metric::kSassApiBranchExecuted);
  if (api && p.get(metric::kSassApiBranchDivergent)) return *api <= 0 ? "no branch executed" : "";
  auto u = p.get(metric::kBranchUniform), d = p.get(metric::kBranchDivergent);
  if (u && d && *u + *d <= 0 && patched_counter_problem(p).empty()) return "no branch executed";
  return "";
}

std::string branches(const ProfileData& p) {
  // The counts branch_efficiency used: the SASS metrics API's, else the
  // range profiler's (branches = uniform + divergent).
  double executed = 0, divergent = 0;
  auto api_b = p.get(metric::kSassApiBranchExecuted),
       api_d = p.get(metric::kSassApiBranchDivergent);
  auto u = p.get(metric::kBranchUniform), d = p.get(metric::kBranchDivergent);
  if (api_b && api_d) {
    executed = *api_b;
    divergent = *api_d;
  } else if (u && d) {
    executed = *u + *d;
    divergent = *d;
  } else {
    return "n/a";
  }
  if (auto eff = branch_efficiency(p))
    return fmt("%.1f%%", *eff) + " (" + fmt("%.0f", divergent) + " of " + fmt("%.0f", executed) +
           " warp branches divergent)";
  if (std::string none = no_branches(p); !none.empty()) return none;
  return "n/a (withheld, see missing numbers)";
}

}  // namespace kgate::profile_model::text
