#include "bot/svg_chart.h"

#include <algorithm>
#include <cstdio>

#include "core/number_format.h"

namespace kgate::bot {

std::string xml_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string render_before_after_svg(const std::string& title, const std::vector<ShapeRow>& rows) {
  const int label_w = 180, bar_w = 420, right_w = 150, bar_h = 14, gap = 4, group_gap = 14;
  const int top = 48;
  const int width = label_w + bar_w + right_w;
  const int group_h = 2 * bar_h + gap + group_gap;
  const int height = top + static_cast<int>(rows.size()) * group_h + 16;
  char buf[512];
  std::string svg;
  std::snprintf(buf, sizeof buf,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
                width, height, width, height);
  svg += buf;
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  svg += "<text x=\"8\" y=\"20\" font-size=\"14\" font-weight=\"bold\">" + xml_escape(title) +
         "</text>\n";
  std::snprintf(buf, sizeof buf,
                "<rect x=\"%d\" y=\"28\" width=\"10\" height=\"10\" fill=\"#9e9e9e\"/>"
                "<text x=\"%d\" y=\"37\">before</text>"
                "<rect x=\"%d\" y=\"28\" width=\"10\" height=\"10\" fill=\"#2e7d32\"/>"
                "<text x=\"%d\" y=\"37\">after (faster)</text>"
                "<rect x=\"%d\" y=\"28\" width=\"10\" height=\"10\" fill=\"#c62828\"/>"
                "<text x=\"%d\" y=\"37\">after (slower)</text>\n",
                label_w, label_w + 14, label_w + 80, label_w + 94, label_w + 200, label_w + 214);
  svg += buf;
  int y = top;
  for (const ShapeRow& r : rows) {
    double scale = std::max({r.before_s, r.after_s, 1e-30});
    int before_len = std::max(1, static_cast<int>(bar_w * r.before_s / scale));
    int after_len = std::max(1, static_cast<int>(bar_w * r.after_s / scale));
    std::string label = r.shape + (r.phase.empty() ? "" : " (" + r.phase + ")");
    std::snprintf(buf, sizeof buf, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", label_w - 8,
                  y + bar_h + gap / 2 + 4);
    svg += buf + xml_escape(label) + "</text>\n";
    std::snprintf(buf, sizeof buf,
                  "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#9e9e9e\"/>"
                  "<text x=\"%d\" y=\"%d\">%s</text>\n",
                  label_w, y, before_len, bar_h, label_w + before_len + 4, y + bar_h - 3,
                  xml_escape(format_seconds(r.before_s)).c_str());
    svg += buf;
    const char* color = r.after_s <= r.before_s ? "#2e7d32" : "#c62828";
    std::string change = format_percent(r.before_s > 0 ? r.after_s / r.before_s - 1 : 0);
    std::snprintf(buf, sizeof buf,
                  "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>"
                  "<text x=\"%d\" y=\"%d\">%s (%s)</text>\n",
                  label_w, y + bar_h + gap, after_len, bar_h, color, label_w + after_len + 4,
                  y + 2 * bar_h + gap - 3, xml_escape(format_seconds(r.after_s)).c_str(),
                  change.c_str());
    svg += buf;
    y += group_h;
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace kgate::bot
