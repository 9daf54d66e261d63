#include "runner/sanitizer_report.h"

#include <regex>
#include <sstream>
#include <vector>

namespace kgate {
namespace {

// "=========     at rmsnorm+0x1a0 in /tmp/x/rmsnorm.cu:42" -> "at rmsnorm+0x1a0 in rmsnorm.cu:42"
// (folders dropped: a temporary checkout's path says nothing to a reader).
std::string without_folders(std::string line) {
  static const std::regex path(R"((/[^\s/:]+)+/([^\s/]+))");
  return std::regex_replace(line, path, "$2");
}

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

// A line that opens a finding (not the banner, a summary or a detail).
bool opens_finding(const std::string& line) {
  static const std::regex finding(
      R"(^(Invalid |Misaligned |Uninitialized |ERROR: |Error: |Race reported|Barrier error|Program hit |Leaked |Out-of-range |Warning: ))");
  return std::regex_search(line, finding);
}

}  // namespace

std::string summarize_sanitizer_output(const std::string& tool, const std::string& output) {
  std::vector<std::string> lines;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    if (!starts_with(line, "=========")) continue;
    lines.push_back(trim(line.substr(9)));
  }
  std::string first, at, address, errors;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    static const std::regex summary(R"(^ERROR SUMMARY: (\d+) errors?)");
    std::smatch m;
    if (std::regex_search(l, m, summary)) {
      errors = m[1];
      continue;
    }
    if (!first.empty() || !opens_finding(l)) continue;
    first = l;
    // The finding's detail lines follow until a blank line.
    for (size_t j = i + 1; j < lines.size() && !lines[j].empty(); ++j) {
      const std::string& d = lines[j];
      if (at.empty() && starts_with(d, "at ")) at = d;
      if (starts_with(d, "Address ") || starts_with(d, "and is ") || starts_with(d, "and "))
        address += (address.empty() ? "" : ", ") + without_folders(d);
      if (opens_finding(d)) break;
    }
  }
  if (first.empty()) {
    if (errors.empty() || errors == "0") return "";
    return tool + ": " + errors + " error" + (errors == "1" ? "" : "s");
  }
  std::string out = tool + ": " + without_folders(first);
  if (!at.empty()) out += " " + without_folders(at);
  if (!address.empty()) {
    if (address.size() > 240) address = address.substr(0, 237) + "...";
    out += " (" + address + ")";
  }
  if (!errors.empty() && errors != "0")
    out += "; " + errors + " error" + (errors == "1" ? "" : "s");
  return out;
}

}  // namespace kgate
