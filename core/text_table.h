#pragma once
// A plain-text table with aligned columns, for terminal output.
#include <string>
#include <vector>

namespace kgate {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : rows_{std::move(header)} {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  std::string render() const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

// "12.3 us", "1.20 ms", "2.5 s".
std::string format_seconds(double seconds);
// "3.2e-04", "0", "inf".
std::string format_error(double value);

}  // namespace kgate
