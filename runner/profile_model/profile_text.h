#pragma once
// Number formatting shared by the summary, the classification's evidence, the
// before/after comparison and the benchmark table, so one number reads the
// same everywhere ("1470 GB/s", "35.1%", "86.05 us").
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runner/profile_model/profile_data.h"

namespace kgate::profile_model::text {

std::string fmt(const char* format, double v);  // printf of one double
std::string pct(std::optional<double> v);       // "35.1%" or "n/a"
std::string num(std::optional<double> v, const char* format = "%.2f");
std::string seconds(double s);         // "86.05 us", "1.203 ms"
std::string bytes(double b);           // "126.53 MB"
std::string rate(double bytes_per_s);  // "1470 GB/s"
std::string hex(uint64_t v);           // "0x1a0"
// "2.0 sectors/request (100% of fetched bytes used)" or "n/a".
std::string coalescing(const ProfileData& p, bool loads);
// "97.0% (12 of 400 warp branches divergent)", "no branch instructions",
// "no branch executed", "n/a".
std::string branches(const ProfileData& p);
// Why a profile has no branch efficiency though its counts were read: "no
// branch instructions" (none in the kernel), "no branch executed"; else "".
std::string no_branches(const ProfileData& p);
// The n largest stall reasons, "selected" (the warp issuing) left out.
std::vector<std::pair<std::string, double>> top_stalls(const ProfileData& p, size_t n);

}  // namespace kgate::profile_model::text
