#include "bot/summary_fit.h"

#include <algorithm>
#include <sstream>
#include <vector>

namespace kgate::bot {
namespace {

bool is_table_row(const std::string& line) {
  size_t first = line.find_first_not_of(" \t");
  return first != std::string::npos && line[first] == '|';
}

bool is_separator_row(const std::string& line) {
  return is_table_row(line) && line.find_first_not_of("|-: \t") == std::string::npos;
}

}  // namespace

bool is_failure_row(const std::string& line) {
  if (!is_table_row(line)) return false;
  std::string lower = line;
  std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
  for (const char* word : {"fail", "slower", "regress", "error", "mismatch", "crash", "timeout",
                           "timed out", "\xE2\x9D\x8C" /* ❌ */, "\xE2\x9C\x97" /* ✗ */})
    if (lower.find(word) != std::string::npos) return true;
  return false;
}

std::string utf8_prefix(const std::string& text, size_t limit) {
  if (text.size() <= limit) return text;
  size_t cut = limit;
  // Step back over continuation bytes (10xxxxxx) to a character start.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut);
}

std::string fit_summary(const std::string& markdown, size_t limit) {
  if (markdown.size() <= limit) return markdown;
  std::vector<std::string> lines;
  {
    std::istringstream in(markdown);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  // A row is droppable when it is a passing body row of a table (not the
  // header: the header is the row just before a separator row).
  std::vector<bool> droppable(lines.size(), false);
  for (size_t i = 0; i < lines.size(); ++i) {
    bool header = i + 1 < lines.size() && is_separator_row(lines[i + 1]);
    droppable[i] = is_table_row(lines[i]) && !is_separator_row(lines[i]) && !header &&
                   !is_failure_row(lines[i]);
  }
  auto render = [&](const std::vector<bool>& dropped, size_t dropped_count) {
    std::string out;
    for (size_t i = 0; i < lines.size(); ++i)
      if (!dropped[i]) out += lines[i] + "\n";
    if (dropped_count > 0)
      out += "\n_" + std::to_string(dropped_count) +
             " passing rows omitted to fit GitHub's 65535-character limit; failures are all "
             "shown. The full report is in the job's artifacts._\n";
    return out;
  };
  std::vector<bool> dropped(lines.size(), false);
  size_t dropped_count = 0;
  std::string out = render(dropped, 0);
  // Drop passing rows from the end; estimate the size without re-rendering each time.
  size_t size = out.size() + 200;  // room for the note
  for (size_t i = lines.size(); i-- > 0 && size > limit;) {
    if (!droppable[i]) continue;
    dropped[i] = true;
    ++dropped_count;
    size -= lines[i].size() + 1;
  }
  out = render(dropped, dropped_count);
  if (out.size() <= limit) return out;
  const std::string tail = "\n\n_(truncated to fit GitHub's 65535-character limit)_\n";
  return utf8_prefix(out, limit - tail.size()) + tail;
}

}  // namespace kgate::bot
