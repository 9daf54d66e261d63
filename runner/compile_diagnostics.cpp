#include "runner/compile_diagnostics.h"

#include <regex>
#include <sstream>

namespace kgate {

std::vector<CompileDiagnostic> parse_compile_diagnostics(std::string_view log) {
  static const std::regex gcc_style(
      R"(^(.+?):(\d+):(?:(\d+):)?\s*(fatal error|error|warning|note|catastrophic error):\s*(.*)$)");
  static const std::regex nvcc_style(
      R"(^(.+?)\((\d+)\):\s*(fatal error|error|warning|note|catastrophic error)\s*(?:#\w+-\w+)?:?\s*(.*)$)");
  std::vector<CompileDiagnostic> out;
  std::istringstream lines{std::string(log)};
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch m;
    CompileDiagnostic d;
    if (std::regex_match(line, m, gcc_style)) {
      d.file = m[1];
      d.line = std::stoi(m[2]);
      d.column = m[3].matched ? std::stoi(m[3]) : 0;
      d.kind = m[4];
      d.message = m[5];
    } else if (std::regex_match(line, m, nvcc_style)) {
      d.file = m[1];
      d.line = std::stoi(m[2]);
      d.kind = m[3];
      d.message = m[4];
    } else {
      continue;
    }
    if (d.kind == "catastrophic error") d.kind = "fatal error";
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace kgate
