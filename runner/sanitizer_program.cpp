#include "runner/sanitizer_program.h"

#include <cstdlib>
#include <filesystem>

#include "core/subprocess.h"

namespace kgate {

std::string find_compute_sanitizer() {
  std::string p = find_program("compute-sanitizer");
  if (!p.empty()) return p;
  const char* home = std::getenv("CUDA_HOME");
  for (std::string dir : {std::string(home ? home : ""), std::string("/usr/local/cuda")}) {
    std::error_code ec;
    if (!dir.empty() && std::filesystem::exists(dir + "/bin/compute-sanitizer", ec))
      return dir + "/bin/compute-sanitizer";
  }
  return "";
}

}  // namespace kgate
