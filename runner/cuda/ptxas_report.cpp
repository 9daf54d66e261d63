#include "runner/cuda/ptxas_report.h"

#include <regex>

namespace kgate::cuda {
namespace {

int number_before(const std::string& line, const std::string& unit) {
  std::smatch m;
  std::regex re("(\\d+) " + unit);
  if (std::regex_search(line, m, re)) return std::stoi(m[1]);
  return -1;
}

}  // namespace

ResourceReport parse_ptxas_report(std::string_view log, const std::string& entry) {
  ResourceReport r;
  // ptxas names the function being described on the line before its numbers;
  // track which function the following lines belong to.
  std::string current;
  size_t start = 0;
  std::string text(log);
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    if (auto p = line.find("Compiling entry function '"); p != std::string::npos) {
      size_t b = p + 26;
      current = line.substr(b, line.find('\'', b) - b);
    } else if (auto q = line.find("Function properties for "); q != std::string::npos) {
      current = line.substr(q + 24);
      while (!current.empty() && (current.back() == '\r' || current.back() == ' '))
        current.pop_back();
    } else if (current == entry) {
      if (line.find("stack frame") != std::string::npos) {
        r.stack_bytes = number_before(line, "bytes stack frame");
        r.spill_store_bytes = number_before(line, "bytes spill stores");
        r.spill_load_bytes = number_before(line, "bytes spill loads");
      } else if (line.find("Used ") != std::string::npos &&
                 line.find("registers") != std::string::npos) {
        r.registers = number_before(line, "registers");
        int smem = number_before(line, "bytes smem");
        r.shared_bytes = smem < 0 ? 0 : smem;
        int lmem = number_before(line, "bytes lmem");
        r.local_bytes = lmem < 0 ? 0 : lmem;
      }
    }
  }
  return r;
}

}  // namespace kgate::cuda
