#include "core/text_table.h"

#include <cmath>
#include <cstdio>

namespace kgate {

std::string TextTable::render() const {
  std::vector<size_t> widths;
  for (const auto& row : rows_)
    for (size_t i = 0; i < row.size(); ++i) {
      if (widths.size() <= i) widths.push_back(0);
      widths[i] = std::max(widths[i], row[i].size());
    }
  std::string out;
  for (size_t r = 0; r < rows_.size(); ++r) {
    std::string line;
    for (size_t i = 0; i < rows_[r].size(); ++i) {
      line += rows_[r][i];
      if (i + 1 < rows_[r].size()) line += std::string(widths[i] - rows_[r][i].size() + 2, ' ');
    }
    out += line + "\n";
    if (r == 0) {
      size_t total = 0;
      for (size_t w : widths) total += w + 2;
      out += std::string(total > 2 ? total - 2 : 0, '-') + "\n";
    }
  }
  return out;
}

}  // namespace kgate
