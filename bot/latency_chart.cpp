#include "bot/latency_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace kgate::bot {
namespace {

// A double-quoted Mermaid string: quotes, backslashes, backticks and
// anything that is not printable ASCII are left out, so a shape name
// cannot end the string or the block.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text)
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '`') out += c;
  return out + "\"";
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

}  // namespace

std::string mermaid_latency_chart(const std::string& title, const std::vector<ShapeRow>& rows) {
  std::string names, before, after;
  double top = 100;
  for (const ShapeRow& r : rows) {
    if (!(r.before_s > 0) || !(r.after_s > 0) || !std::isfinite(r.after_s / r.before_s)) continue;
    double percent = 100 * r.after_s / r.before_s;
    top = std::max(top, percent);
    const char* sep = names.empty() ? "" : ", ";
    names += sep + quoted(r.shape);
    before += sep + std::string("100");
    after += sep + number(percent);
  }
  if (names.empty()) return "";
  const double axis = std::ceil(top * 1.1 / 10) * 10;
  return "```mermaid\nxychart-beta\n  title " + quoted(title) + "\n  x-axis [" + names +
         "]\n  y-axis \"latency, % of before\" 0 --> " + number(axis) + "\n  bar [" + after +
         "]\n  line [" + before + "]\n```\n";
}

}  // namespace kgate::bot
